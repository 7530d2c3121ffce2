// tomoraster: tomographic reconstruction on the graphics pipeline. Entry point:
// global options, subcommand dispatch, and one clear line for every failure.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

#include "apps/tomoraster/command.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/shutdown.hpp"

namespace tomo::cli {

std::vector<Command>& commands() {
  static std::vector<Command> list;
  return list;
}

}  // namespace tomo::cli

int main(int argc, char** argv) {
  using namespace tomo;
  CLI::App app{"tomoraster: tomographic reconstruction on the graphics pipeline (OpenGL, CUDA, CPU)"};
  app.require_subcommand(1);
  app.fallthrough();
  auto& opt = runtime_options();
  std::string shader_dir;
  bool verbose = false, quiet = false, no_progress = false;
  app.add_option("--shader-dir", shader_dir, "Load GLSL files from this directory instead of the embedded ones")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--gl-validate", opt.gl_validate, "Synchronous GL debug output; GL errors become fatal");
  app.add_option("--cuda-device", opt.cuda_device, "CUDA device index (also picks the matching EGL device)");
  app.add_flag("-v,--verbose", verbose, "Debug logging");
  app.add_flag("-q,--quiet", quiet, "Warnings and errors only");
  app.add_flag("--no-progress", no_progress, "No progress bars");

  std::vector<std::pair<CLI::App*, const cli::Command*>> subs;
  for (const auto& c : cli::commands()) subs.emplace_back(c.setup(app), &c);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  opt.shader_dir = shader_dir;
  opt.progress = !no_progress;
  set_log_level(verbose ? LogLevel::Debug : quiet ? LogLevel::Warn : LogLevel::Info);

  struct Shutdown {
    ~Shutdown() { run_shutdown_hooks(); }  // GPU contexts go before the drivers unload
  } shutdown;
  try {
    for (auto& [sub, cmd] : subs)
      if (sub->parsed()) return cmd->run();
  } catch (const InputError& e) {
    std::fprintf(stderr, "tomoraster: error: %s\n", e.what());
    return cli::kExitBadInput;
  } catch (const UnavailableError& e) {
    std::fprintf(stderr, "tomoraster: unavailable: %s\n", e.what());
    return cli::kExitUnavailable;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tomoraster: failed: %s\n", e.what());
    return cli::kExitFailure;
  }
  return cli::kExitFailure;
}
