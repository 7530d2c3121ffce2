// Process-wide options set once by the CLI (or tests) and read by backends:
// where shaders come from, GL validation, which CUDA device.
#pragma once
#include <filesystem>
#include <string>

namespace tomo {

struct RuntimeOptions {
  std::filesystem::path shader_dir;  // empty: shaders embedded in the binary
  bool gl_validate = false;          // synchronous KHR_debug, GL errors throw
  int cuda_device = 0;
  std::string gpus;                  // --gpus: "" one device; "all", a count or "0,1" (docs/multigpu.md)
  bool progress = true;              // progress bars on stderr
};

RuntimeOptions& runtime_options();

}  // namespace tomo
