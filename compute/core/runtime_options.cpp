#include "compute/core/runtime_options.hpp"

#include "compute/core/error.hpp"
#include "compute/core/team.hpp"

namespace tomo {

RuntimeOptions& runtime_options() {
  static RuntimeOptions options;
  return options;
}

void check_gpus_option(bool given, const std::string& spec) {
  if (!given) return;
  if (spec.empty()) throw InputError("--gpus: empty value (give all, a count N or a list such as 0,2)");
  (void)parse_device_spec(spec, -1, "");  // the text alone; devices are counted where they are used
}

void refuse_gpus_option(const std::string& who) {
  if (!runtime_options().gpus.empty())
    throw InputError("--gpus: " + who + " runs on one device (several GPUs: docs/multigpu.md)");
}

}  // namespace tomo
