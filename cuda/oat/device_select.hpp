// Selects `device` (runtime_options().cuda_device when < 0) and names it: called first in the oat CUDA objects'
// member initialisers, so their streams and buffers are made on that device.
#pragma once
#include <string>
#include <vector>

#include "compute/core/runtime_options.hpp"
#include "cuda/core/device.hpp"

namespace tomo::oat {

inline std::string select_cuda_device(int device = -1) {
  tomo::cuda::select_device(device >= 0 ? device : runtime_options().cuda_device);
  const int current = tomo::cuda::current_device();
  for (const auto& d : tomo::cuda::list_devices())
    if (d.index == current) return tomo::cuda::describe(d);
  return "CUDA " + std::to_string(current);
}

// "CUDA devices 0, 1": how a backend's ranks over `devices` name themselves.
inline std::string cuda_devices_text(const std::vector<int>& devices) {
  std::string names;
  for (const int d : devices) names += (names.empty() ? "" : ", ") + std::to_string(d);
  return "CUDA devices " + names;
}

}  // namespace tomo::oat
