// `cuda` ProjectionFilter: the FDK pre-processing with cuFFT (CufftFilter) on host (or device)
// projections, chunk by chunk: upload, weights + R2C + ramp + C2R + crop on the GPU, download. The
// result comes back to the host because the pipeline keeps one host stack (write_rct, the cpu
// reference, every back-projector reads it); the upload/download is counted in its time.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>

#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/fdk/cufft_filter.hpp"
#include "compute/fdk/projection_filter.hpp"

namespace tomo::fdk {
namespace {

class CudaFilter final : public ProjectionFilter {
 public:
  void setup(const CArmGeometry& g, const FilterOptions& options) override {
    tomo::cuda::select_device(runtime_options().cuda_device);
    g_ = g;
    filter_ = std::make_unique<CufftFilter>(g, options, kChunk);
    stream_ = std::make_unique<tomo::cuda::Stream>();
    buffer_.resize(static_cast<std::size_t>(g.sx) * g.sy * filter_->max_batch());
    // Warm-up on zeros: the cuFFT plans of a full chunk are made here, not in the timed apply().
    buffer_.fill_zero(*stream_);
    filter_->apply_device(0, filter_->max_batch(), buffer_.data(), buffer_.data(), *stream_);
    stream_->synchronize();
  }

  void apply(int n0, int count, const float* raw, float* out) override {
    if (!filter_) throw Error("fdk cuda filter: apply() before setup()");
    const std::size_t image = static_cast<std::size_t>(g_.sx) * g_.sy;
    const int chunk = filter_->max_batch();
    for (int b = 0; b < count; b += chunk) {
      const int cnt = std::min(chunk, count - b);
      const std::size_t n = image * cnt;
      // cudaMemcpyDefault: `raw` and `out` may be host memory (the pipeline) or device memory
      // (device_arrays.hpp); the filter runs on its own buffer either way.
      TOMO_CUDA_CHECK(cudaMemcpyAsync(buffer_.data(), raw + b * image, n * sizeof(float), cudaMemcpyDefault, *stream_));
      filter_->apply_device(n0 + b, cnt, buffer_.data(), buffer_.data(), *stream_);  // range-checked there
      TOMO_CUDA_CHECK(cudaMemcpyAsync(out + b * image, buffer_.data(), n * sizeof(float), cudaMemcpyDefault, *stream_));
      stream_->synchronize();
    }
  }

  void synchronize() override {
    if (stream_) stream_->synchronize();
  }

  std::string describe() const override {
    const bool fused = filter_ && filter_->passes() == FilterPasses::fused;
    return "cuda (cuFFT, float, batches of " + std::to_string(filter_ ? filter_->max_batch() : kChunk) +
           " projections, padded length " + std::to_string(filter_ ? filter_->padded_size() : 0) +
           (fused ? ", weights fused as callbacks)" : ")");
  }

 private:
  static constexpr int kChunk = 8;
  CArmGeometry g_;
  std::unique_ptr<CufftFilter> filter_;
  std::unique_ptr<tomo::cuda::Stream> stream_;
  tomo::cuda::DeviceBuffer<float> buffer_;
};

const BackendRegistrar<ProjectionFilter> kRegisterCuda({"cuda", kPriorityCuda,
                                                   [] { return tomo::cuda::cuda_availability(); },
                                                   [] { return std::make_unique<CudaFilter>(); }});

}  // namespace
}  // namespace tomo::fdk
