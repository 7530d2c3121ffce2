// Subcommands of the tomoraster CLI. Each command file registers itself; main()
// parses, then runs the one that was given. Later issues add view/bench this way.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace CLI { class App; }

namespace tomo::cli {

struct Command {
  std::string name;
  // Adds the subcommand and its options to the root app; returns it.
  std::function<CLI::App*(CLI::App& root)> setup;
  // Runs it after parsing; returns the exit status.
  std::function<int()> run;
};

std::vector<Command>& commands();

struct CommandRegistrar {
  explicit CommandRegistrar(Command c) { commands().push_back(std::move(c)); }
};

// Exit statuses.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;      // internal error, crosscheck above tolerance
inline constexpr int kExitBadInput = 2;     // scene, file, value, backend name
inline constexpr int kExitUnavailable = 3;  // device lacks a feature / no GPU

}  // namespace tomo::cli
