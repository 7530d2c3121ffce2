// Bench support for musr on CUDA (plain C++ interface so bench/ needs no nvcc): the device
// memory bandwidth one χ² evaluation is bound by, measured in the same run.
#pragma once
#include <cstddef>

namespace tomo::musr {

// Device-to-device copy of `bytes` (best of 5): GB/s counting bytes read + written.
double measure_copy_gbps(std::size_t bytes);

}  // namespace tomo::musr
