// Copy-bandwidth probe for bench_musr (see cuda_bench.hpp).
#include "cuda/musr/cuda_bench.hpp"

#include <algorithm>

#include "cuda/core/check.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/event.hpp"
#include "cuda/core/stream.hpp"

namespace tomo::musr {

double measure_copy_gbps(std::size_t bytes) {
  cuda::DeviceBuffer<unsigned char> a(bytes), b(bytes);
  cuda::Stream stream;
  cuda::Event start, stop;
  double best_ms = 1e30;
  for (int rep = 0; rep < 6; ++rep) {
    start.record(stream);
    TOMO_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, stream));
    stop.record(stream);
    const double ms = start.elapsed_ms(stop);
    if (rep > 0) best_ms = std::min(best_ms, ms);  // the first copy warms up
  }
  return 2.0 * static_cast<double>(bytes) / (best_ms * 1e-3) / 1e9;
}

}  // namespace tomo::musr
