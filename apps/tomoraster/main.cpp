// tomoraster: tomographic reconstruction on the graphics pipeline. Entry point:
// global options, subcommand dispatch, and one clear line for every failure.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <thread>

#include "apps/tomoraster/command.hpp"
#include "compute/core/error.hpp"
#include "compute/core/interrupt.hpp"
#include "compute/core/log.hpp"
#include "compute/core/mpi_world.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/shutdown.hpp"

namespace tomo::cli {

std::vector<Command>& commands() {
  static std::vector<Command> list;
  return list;
}

// CLI11's own exit codes (104–114) are not the documented ones: a usage error is bad input,
// exit 2, with one line. --help and --version keep CLI11's output and exit 0.
int usage_error(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
  // The first word that is neither an option nor an option's value names the command.
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--shader-dir" || a == "--cuda-device" || a == "--gpus") {
      ++i;
      continue;
    }
    if (a.empty() || a[0] == '-') continue;
    std::string known;
    const CLI::App& all = app;
    for (const CLI::App* sub : all.get_subcommands(std::function<bool(const CLI::App*)>{})) {
      if (sub->get_name() == a) {
        known.clear();
        break;
      }
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known.empty()) {
      std::fprintf(stderr, "tomoraster: error: unknown command '%s' (commands: %s; see tomoraster --help)\n",
                   a.c_str(), known.c_str());
      return kExitBadInput;
    }
    break;
  }
  std::fprintf(stderr, "tomoraster: error: %s (see tomoraster --help)\n", e.what());
  return kExitBadInput;
}

// One line for a failure; under mpirun the job ends on every process (docs/multigpu.md). A
// process other than rank 0 waits a little first: when rank 0 fails too (bad input fails on
// every process alike), its MPI_Abort ends this one before a second copy of the line is printed.
int fail(const char* kind, const char* what, int code) {
  if (process_group() && process_rank() != 0) std::this_thread::sleep_for(std::chrono::seconds(2));
  if (kind) std::fprintf(stderr, "tomoraster: %s: %s\n", kind, what);
  return abort_processes(code);
}

}  // namespace tomo::cli

int main(int argc, char** argv) {
  using namespace tomo;
  runtime_options().started = std::chrono::steady_clock::now();  // time to image counts from here
  install_interrupt_guard();  // first: every thread started later inherits the blocked signals
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
  CLI::Option* gpus = app.add_option("--gpus", opt.gpus,
                 "Several GPUs: all, a count N or a list 0,2 (glpet, strip, fdk, oat sph; docs/multigpu.md); the cpu backend runs N threads");
  app.add_flag("-v,--verbose", verbose, "Debug logging");
  app.add_flag("-q,--quiet", quiet, "Warnings and errors only (no progress bars either)");
  app.set_version_flag("--version", std::string("tomoraster ") + TOMO_VERSION);
  app.add_flag("--no-progress", no_progress, "No progress bars");

  std::vector<std::pair<CLI::App*, const cli::Command*>> subs;
  for (const auto& c : cli::commands()) subs.emplace_back(c.setup(app), &c);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli::usage_error(app, e, argc, argv);
  }
  opt.shader_dir = shader_dir;
  opt.command_line.assign(argv, argv + argc);
  opt.progress = !no_progress && !quiet;
  set_log_level(verbose ? LogLevel::Debug : quiet ? LogLevel::Warn : LogLevel::Info);
  // Started by mpirun with several processes: MPI first (docs/multigpu.md, "Cluster").
  try {
    start_processes();
  } catch (const std::exception& e) {  // no MPI here, or it did not start: every process exits 3
    if (process_rank() == 0) std::fprintf(stderr, "tomoraster: unavailable: %s\n", e.what());
    return cli::kExitUnavailable;  // mpirun ends the job when a process exits non-zero
  }
  if (process_group()) set_interrupt_notice(false);  // mpirun's SIGTERM: another process failed and said why
  if (process_group() && process_rank() != 0 && !verbose) {
    set_log_level(LogLevel::Error);  // rank 0 speaks for the job
    opt.progress = false;
  }

  struct Shutdown {
    ~Shutdown() { run_shutdown_hooks(); }  // GPU contexts go before the drivers unload
  } shutdown;
  try {
    check_gpus_option(gpus->count() > 0, opt.gpus);  // one rule for every command
    for (auto& [sub, cmd] : subs)
      if (sub->parsed() && process_group() && sub->get_name() != "run")
        throw InputError(str_cat("under mpirun (", process_group()->size(), " processes) only `tomoraster run` runs; '",
                                 sub->get_name(), "' is a one-process command"));
    for (auto& [sub, cmd] : subs)
      if (sub->parsed()) return cmd->run();
  } catch (const Interrupted& e) {
    return cli::fail(nullptr, nullptr, 128 + e.signal());  // the shell's convention (130 for Ctrl-C); the watcher said why
  } catch (const InputError& e) {
    return cli::fail("error", e.what(), cli::kExitBadInput);
  } catch (const UnavailableError& e) {
    return cli::fail("unavailable", e.what(), cli::kExitUnavailable);
  } catch (const std::exception& e) {
    return cli::fail("failed", e.what(), cli::kExitFailure);
  }
  return cli::kExitFailure;
}
