// Selects runtime_options().cuda_device and names it: called first in the oat CUDA objects'
// member initialisers, so their streams and buffers are made on that device.
#pragma once
#include <string>

#include "compute/core/runtime_options.hpp"
#include "cuda/core/device.hpp"

namespace tomo::oat {

inline std::string select_cuda_device() {
  tomo::cuda::select_device(runtime_options().cuda_device);
  const int current = tomo::cuda::current_device();
  for (const auto& d : tomo::cuda::list_devices())
    if (d.index == current) return tomo::cuda::describe(d);
  return "CUDA " + std::to_string(current);
}

}  // namespace tomo::oat
