// Process-wide options set once by the CLI (or tests) and read by backends:
// where shaders come from, GL validation, which CUDA device.
#pragma once
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace tomo {

struct RuntimeOptions {
  std::filesystem::path shader_dir;  // empty: shaders embedded in the binary
  bool gl_validate = false;          // synchronous KHR_debug, GL errors throw
  int cuda_device = 0;
  std::string gpus;                  // --gpus: "" one device; "all", a count or "0,1" (docs/multigpu.md)
  bool progress = true;              // progress bars on stderr
  std::vector<std::string> command_line;  // argv as given, for report.json (empty: not from the CLI)
  // When the process started (set first thing by the CLI): report.json's stages count the wall time
  // from here. Unset (Python, tests): from the start of the run.
  std::chrono::steady_clock::time_point started{};
};

RuntimeOptions& runtime_options();

// The one rule for --gpus, the same for every command: a value that cannot be honoured is an
// InputError (exit 2) with one line. Before any command runs: `spec` given but empty, or not
// "all", a count N or a list of device indices (parse_device_spec's text rules).
void check_gpus_option(bool given, const std::string& spec);
// Where only one device can run (a problem or command without multi-device support, named by
// `who`, e.g. "problem safir"): any --gpus is refused.
void refuse_gpus_option(const std::string& who);

}  // namespace tomo
