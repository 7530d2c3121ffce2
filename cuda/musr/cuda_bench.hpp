// Bench support for musr on CUDA (plain C++ interface so bench/ needs no nvcc): the device
// memory bandwidth one χ² evaluation is bound by, and what one call costs besides its kernel,
// both measured in the same run.
#pragma once
#include <cstddef>

namespace tomo::musr {

// Device-to-device copy of `bytes` (best of 5): GB/s counting bytes read + written.
double measure_copy_gbps(std::size_t bytes);

// The cost of one call with a kernel that does nothing but hand one value back, by the ways of
// passing the parameters (np doubles) and getting the result; medians of `reps` calls, µs.
struct CallProbe {
  double launch_sync_us = 0;   // a kernel without arguments, then a stream synchronize
  double memcpy_path_us = 0;   // cudaMemcpy of the parameters H2D, launch, cudaMemcpy of the result D2H
  double args_sync_us = 0;     // parameters as a by-value argument, result into mapped host memory, stream synchronize (v1)
  double args_poll_us = 0;     // the same, the host polling a sequence number the kernel stores after the result (v2)
};
CallProbe measure_call_overhead(int np, int reps);

}  // namespace tomo::musr
