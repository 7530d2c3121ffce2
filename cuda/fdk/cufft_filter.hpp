// FDK pre-processing on the GPU with cuFFT: the same cosine weight, Parker (or π/arc) column
// weights, zero-padded ramp filter (FdkFilter::response()) and Δβ/P scale as the CPU FdkFilter,
// as batched R2C → multiply → C2R over every detector row of a batch of projections (float).
#pragma once
#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "compute/fdk/filter.hpp"
#include "compute/fdk/geometry.hpp"

namespace tomo::fdk {

// Where the weights, the response and the crop are applied. fused: inside cuFFT's own kernels,
// as link-time-optimised callbacks (LTO-IR from NVRTC, read from its disk cache after the first
// process, linked into the plans by cuFFT's JIT): the R2C loads each raw row weighted and
// zero-padded and stores its spectrum times the response, the C2R stores only the first sx
// samples of a row; two passes over the data.
// separate: kernels around cuFFT (weight + pad, multiply, crop): three passes more.
enum class FilterPasses { fused, separate };

class CufftFilter {
 public:
  // Builds the frequency response and weights on the host with FdkFilter's own functions and
  // uploads them; cuFFT plans are made on first use per batch size and kept (reused) after.
  // `max_batch`: projections per cuFFT execution (device scratch grows with it). `passes`:
  // fused falls back to separate (with a log line) where cuFFT or NVRTC cannot make its plans.
  explicit CufftFilter(const CArmGeometry& g, FilterOptions options = {}, int max_batch = 8,
                       FilterPasses passes = FilterPasses::fused);
  ~CufftFilter();
  CufftFilter(const CufftFilter&) = delete;
  CufftFilter& operator=(const CufftFilter&) = delete;

  // Device → device: `count` raw projections (sx·sy floats each, n-major) of indices n0 … n0+count−1
  // into `out` (same layout; may equal `raw`), queued on `stream`. Not thread-safe (shared scratch),
  // and one stream at a time (the next call's batches go after this call's on the same stream).
  void apply_device(int n0, int count, const float* raw, float* out, cudaStream_t stream);
  // Host → host convenience (pageable copies, synchronous).
  void apply_host(int n0, int count, const float* raw, float* out);

  int padded_size() const;
  int max_batch() const;
  // The passes in use (fused unless asked otherwise or unavailable here).
  FilterPasses passes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The fused callbacks' source compiled by NVRTC to LTO-IR for compute capability major.minor,
// through the on-disk cache of cuda/core/nvrtc_cache.hpp (needs no device; CufftFilter keeps the
// result per process).
std::vector<char> cufft_callbacks_ltoir(int cc_major, int cc_minor);

// One-shot: filters `count` projections starting at index n0 (host arrays, n-major) on the
// current CUDA device; equals FdkFilter::apply per projection to float precision.
void cuda_filter_projections(const CArmGeometry& g, const FilterOptions& options, int n0, int count,
                             const float* raw, float* out);

}  // namespace tomo::fdk
