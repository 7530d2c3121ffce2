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
// exponent-pinned z, FbpLeanMode::pinned; `deferred`: the deferred kernel, "shared-8x": pinned's
// update with the pairs next to a sample recorded and added exactly by a fix-up pass,
// fbp_kernels.hpp "The deferred variant"). kDefaultFbpVariant is what the backend runs: shared-8x
// (issue 13: the fast kernel's loop with the exact variants' contract; shared-8 before it, chosen
// from bench_oat's side-by-side rows on the H200, docs/oat.md).
enum class FbpVariant { texture, ldg, shared };
struct FbpChoice {
  FbpVariant variant = FbpVariant::shared;
  int voxels_per_thread = 8;  // shared only
  bool batched = false;       // shared only
  bool lean = false;          // shared only: the lean kernel (batched ignored)
  bool fast = false;          // lean only: FbpLeanMode::fast instead of exact
  bool pinned = false;        // lean only: FbpLeanMode::pinned instead of exact
  bool unrolled = false;      // pinned only: FbpLeanMode::pinned_unrolled
  bool deferred = false;      // lean only: the deferred kernel and its fix-up pass (fast, pinned ignored)
};
inline constexpr FbpChoice kDefaultFbpVariant{FbpVariant::shared, 8, false, true, false, false, false, true};

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
  // The deferred kernel (8 or 16 voxels per thread) and its fix-up pass; where a block's list
  // overflows (allocated on first use, deferred_capacity), the pinned lean kernel instead (logged
  // once at debug level). Waits for the stream (it reads the overflow flag).
  void run_deferred(int voxels_per_thread);
  void run_fixup();  // the last run_deferred's fix-up pass again (bench_oat times it alone)
  // Entries the last run_deferred recorded (one per thread and transducer with a voxel next to a
  // sample) and whether its lists overflowed; per block capacity of the lists. Waits for the stream.
  std::size_t deferred_entries() const;
  bool deferred_overflowed() const { return deferred_overflow_; }
  std::size_t deferred_capacity() const { return deferred_per_block_; }
  // Lists of `per_block` entries per block from the next run_deferred on (0: the automatic size);
  // tests force the overflow path so.
  void set_deferred_capacity(unsigned per_block);
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
  // The deferred kernel's lists (fbp_kernels.hpp FbpDeferredList), allocated by run_deferred.
  tomo::cuda::DeviceBuffer<unsigned long long> deferred_entries_;
  tomo::cuda::DeviceBuffer<unsigned> deferred_counts_, deferred_flag_;
  unsigned deferred_per_block_ = 0, deferred_forced_ = 0;
  int deferred_voxels_ = 8;  // the last run_deferred's voxels per thread
  bool deferred_overflow_ = false, deferred_logged_ = false;
  cuda_detail::FbpDeferredList deferred_list();
};

}  // namespace tomo::oat
