// Running the built tomoraster binary from a test: its exit status and output, and a
// temporary folder per test.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::test {

using CliResult = CommandResult;

// `tomoraster --no-progress ARGS`, through the shell (ARGS may redirect or quote), in the
// folder `cwd` when one is given, after `env` (e.g. "DISPLAY=:7" or "env -u DISPLAY").
inline CliResult run_cli(const std::string& args, const std::filesystem::path& cwd = {}, const std::string& env = {}) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on long + chains.
  std::string cmd;
  if (!cwd.empty()) cmd.append("cd '").append(cwd.string()).append("' && ");
  if (!env.empty()) cmd.append(env).append(" ");
  cmd.append(TOMO_BINARY).append(" --no-progress ").append(args).append(" 2>&1");
  return run_command(cmd);
}

inline int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace tomo::test
