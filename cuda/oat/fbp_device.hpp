// The oat FBP on one CUDA device with its data resident: the (M, D) table in a float2 texture and
// in linear memory (for the __ldg and shared-memory variants), the transducers, the image. Shared
// by the `cuda` Fbp backend, its GPU tests and bench_oat's variants and probes.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/core/texture.hpp"
#include "cuda/oat/fbp_kernels.hpp"

namespace tomo::oat {

// How the FBP reads its data table (every variant computes the same exact formula):
// texture (point fetches), ldg (read-only data cache), shared (per-block windows in shared
// memory, `voxels_per_thread` 4 or 8 along z; `batched`: each thread's reads of a transducer
// issued together, FbpSharedShape::batched; `lean`: the lean kernel, 8 or 16 voxels per thread,
// fbp_kernels.hpp "The lean variant"; `fast`: lean without the double refinement, a looser
// tolerance, never chosen silently; `pinned`: lean exact with index and test from the bits of an
// exponent-pinned z, FbpLeanMode::pinned). kDefaultFbpVariant is what the backend runs; it was chosen
// from bench_oat's side-by-side rows on the H200 (docs/oat.md).
enum class FbpVariant { texture, ldg, shared };
struct FbpChoice {
  FbpVariant variant = FbpVariant::shared;
  int voxels_per_thread = 8;  // shared only
  bool batched = false;       // shared only
  bool lean = false;          // shared only: the lean kernel (batched ignored)
  bool fast = false;          // lean only: FbpLeanMode::fast instead of exact
  bool pinned = false;        // lean only: FbpLeanMode::pinned instead of exact
  bool unrolled = false;      // pinned only: FbpLeanMode::pinned_unrolled
};
inline constexpr FbpChoice kDefaultFbpVariant{FbpVariant::shared, 8};

class FbpDevice {
 public:
  // Selects runtime_options().cuda_device. Always the exact formula (see fbp_kernels.hpp). The
  // texture variant is unavailable when the table exceeds the 2D texture limits (K − 1 wide, Q
  // high), the shared one when a window would exceed 2048 entries (voxels much larger than c₀Δt).
  FbpDevice(const OatGeometry& g);

  // p[q·K + k] (host, EIR-free pressure) → the table: w_q·(½(p_k + p_{k+1}), p_{k+1} − p_k) in
  // double, then float. Ordered on stream().
  void upload(std::span<const double> pressure);
  void run(cuda_detail::FbpMode mode);  // texture kernel: image = FBP (or its compute probe's output)
  void run_fetch_probe();
  // Shared-memory kernel with the shape of shared_shape(voxels_per_thread); slot > 0 overrides its
  // window length, shorter only with mode checked (tests force the out-of-window path so);
  // batched only with mode exact.
  void run_shared(cuda_detail::FbpSharedMode mode, int voxels_per_thread, int slot = 0, bool batched = false);
  // The lean kernel (8 or 16 voxels per thread), same windows; slot as run_shared's (shorter only
  // with mode checked).
  void run_lean(cuda_detail::FbpLeanMode mode, int voxels_per_thread, int slot = 0);
  void run(const FbpChoice& c);  // the exact formula through variant c
  void run_default() { run(best()); }
  std::vector<float> image() const;  // waits for the stream

  bool available(FbpVariant v) const;
  // kDefaultFbpVariant where available, else the first available of shared, texture, ldg.
  FbpChoice best() const;
  cuda_detail::FbpSharedShape shared_shape(int voxels_per_thread) const;
  const cuda_detail::FbpParams& params() const { return params_; }
  float eps_lean() const { return eps_lean_; }
  cudaStream_t stream() const { return stream_.get(); }
  void synchronize() const { stream_.synchronize(); }
  const std::string& device() const { return device_; }

 private:
  std::string device_;
  OatGeometry g_;
  bool texture_ = false;
  int slot_ = 0;  // the shared variant's window length (0: unavailable)
  cuda_detail::FbpParams params_{};
  float eps_lean_ = 1e-3f;  // the lean kernel's bound of its fp32 kr (fbp_device.cpp lean_eps)
  std::vector<double> weights_;
  tomo::cuda::Stream stream_;
  tomo::cuda::DeviceBuffer<float4> transducers_, transducers_samples_;
  tomo::cuda::DeviceBuffer<double> positions_;
  tomo::cuda::DeviceBuffer<float> image_;
  tomo::cuda::DeviceBuffer<float2> linear_table_;  // the table again, for FbpMode::exact_ldg
  tomo::cuda::CudaArray table_;
  tomo::cuda::TextureObject point_;
  std::vector<float2> host_table_;
};

}  // namespace tomo::oat
