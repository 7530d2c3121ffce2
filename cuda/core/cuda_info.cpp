// The CUDA section of `tomoraster info`: runtime/driver versions and each device,
// or why there is none.
#include <cuda_runtime_api.h>

#include "cuda/core/device.hpp"
#include "compute/core/info.hpp"

namespace tomo::cuda {
namespace {

std::vector<std::string> cuda_lines() {
  std::vector<std::string> out;
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  auto ver = [](int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); };
  out.push_back("runtime " + ver(runtime) + ", driver " + (driver ? ver(driver) : std::string("none")));
  std::string why;
  auto devices = list_devices(&why);
  if (devices.empty()) out.push_back("no CUDA device: " + why);
  for (const auto& d : devices) out.push_back(describe(d));
  return out;
}

const InfoRegistrar kRegister({"CUDA", 20, cuda_lines});

}  // namespace
}  // namespace tomo::cuda
