// bench_musr's CUDA-only probes (bench-only, not product code; plain C++ interface so the bench's
// C++ needs no CUDA headers): the device memory bandwidth one χ² evaluation is bound by, what one
// call costs besides its kernel, and the kernel time of the shipped cuda evaluator.
#pragma once
#include <cstddef>
#include <span>

namespace tomo::musr {

class CudaChi2Evaluator;

// Device-to-device copy of `bytes` (best of 5): GB/s counting bytes read + written.
double measure_copy_gbps(std::size_t bytes);

// The cost of one call with a kernel that does nothing but hand one value back, by the ways of
// passing the parameters (np doubles) and getting the result; medians of `reps` calls, µs.
struct CallProbe {
  double launch_sync_us = 0;   // a kernel without arguments, then a stream synchronize
  double memcpy_path_us = 0;   // cudaMemcpy of the parameters H2D, launch, cudaMemcpy of the result D2H
  double args_sync_us = 0;     // parameters as a by-value argument, result into mapped host memory, stream synchronize
  double args_poll_us = 0;     // the same, the host polling a sequence number the kernel stores after the result
};
CallProbe measure_call_overhead(int np, int reps);

// Device time of one evaluation's kernel in µs: `launches` launches back to back between two CUDA
// events on the evaluator's stream, no host wait in between (`ev` with data uploaded).
double kernel_us(CudaChi2Evaluator& ev, std::span<const double> params, bool gradient, int launches);

}  // namespace tomo::musr
