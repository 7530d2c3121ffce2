// The cuda backend's devices for the list-mode problems' ranks (compute/multi/ranks.hpp): the
// --gpus text resolved as glpet's cuda ranks resolve it, one rank per device.
#include "compute/core/log.hpp"
#include "compute/multi/ranks.hpp"
#include "cuda/core/device.hpp"
#include "cuda/multi/nccl_team.hpp"

namespace tomo::cuda {
namespace {

const bool kRegisterCudaResolver = [] {
  register_device_resolver(
      "cuda", [](const std::string& gpus, const ProcessGroup* group) { return resolve_gpus(gpus, group); },
      [](int d) {
        const auto infos = list_devices();
        return d < int(infos.size()) ? describe(infos[std::size_t(d)]) : str_cat("CUDA ", d);
      });
  return true;
}();

}  // namespace
}  // namespace tomo::cuda
