// The oat FBP on one CUDA device with its data resident: the (M, D) table in linear memory (and in
// a float2 texture where it fits the texture limits), the transducers, the image. What the `cuda`
// Fbp backend and the device-array FBP of the Python module run (FbpDevice::choose picks the kernel).
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/core/texture.hpp"
#include "cuda/oat/fbp_kernels.hpp"

namespace tomo::oat {

// The kernels of the cuda FBP; every one computes the same exact formula (fbp_kernels.hpp):
// deferred: time windows in shared memory, the pairs next to a sample added by an exact fix-up
//   pass (the default);
// pinned: the same windows, those pairs refined in double in the main loop (deferred's fallback
//   where its lists overflow);
// texture: one point fetch per update (where a block's window would not fit shared memory);
// ldg: the same reads from linear memory (where the table also exceeds the 2D texture limits).
enum class FbpKernel { deferred, pinned, texture, ldg };
std::string_view kernel_name(FbpKernel k);

struct FbpDeviceOptions {
  // Entries per block of the deferred kernel's lists; 0: sized from the geometry and free memory.
  unsigned list_capacity = 0;
  int device = -1;  // CUDA device; < 0: runtime_options().cuda_device
};

class FbpDevice {
 public:
  // Selects options.device (runtime_options().cuda_device when < 0). The texture kernel is unavailable when the table exceeds
  // the 2D texture limits (K − 1 wide, Q high), the shared-memory ones when a window would exceed
  // 2048 entries (voxels much larger than c₀Δt).
  explicit FbpDevice(const OatGeometry& g, FbpDeviceOptions o = {});

  // The kernel the backend runs for oat.fbp.read (UnavailableError when the one asked for is not).
  FbpKernel choose(FbpRead read = FbpRead::automatic) const;
  bool available(FbpKernel k) const;

  // p[q·K + k] (host, EIR-free pressure) → the table: w_q·(½(p_k + p_{k+1}), p_{k+1} − p_k) in
  // double, then float. Ordered on stream().
  void upload(std::span<const double> pressure);
  // The same from Q·K floats on this device (the caller's writes done), the table built there.
  void upload_device(const float* pressure);
  // image = the FBP through kernel k. deferred: where its lists overflow, the pinned kernel
  // instead (logged once at debug level); waits for the stream (it reads the overflow flag).
  void run(FbpKernel k);
  std::vector<float> image() const;     // waits for the stream
  void copy_image(float* device) const;  // into device memory of this device; waits for the stream

  // The last deferred run: list entries recorded (one per thread and transducer with a voxel next
  // to a sample), whether its lists overflowed, and their capacity per block. Waits for the stream.
  std::size_t deferred_entries() const;
  bool deferred_overflowed() const { return deferred_overflow_; }
  std::size_t deferred_capacity() const { return deferred_per_block_; }

  std::size_t voxels() const { return image_.size(); }
  std::size_t data_samples() const { return g_.transducers.size() * static_cast<std::size_t>(g_.time.samples); }
  int window_slot() const { return slot_; }  // the windows' length (0: no shared-memory kernel)
  float eps_lean() const { return eps_lean_; }
  cudaStream_t stream() const { return stream_.get(); }
  void synchronize() const { stream_.synchronize(); }
  const std::string& device() const { return device_; }

 private:
  cuda_detail::FbpSharedShape shared_shape() const;
  cuda_detail::FbpDeferredList deferred_list();
  void run_deferred();

  std::string device_;
  OatGeometry g_;
  FbpDeviceOptions opt_;
  bool texture_ = false;
  int slot_ = 0;  // the shared-memory kernels' window length (0: unavailable)
  cuda_detail::FbpParams params_{};
  float eps_lean_ = 1e-3f;  // the bound of the shared-memory kernels' fp32 kr (fbp_device.cpp lean_eps)
  std::vector<double> weights_;
  tomo::cuda::Stream stream_;
  tomo::cuda::DeviceBuffer<float4> transducers_, transducers_samples_;
  tomo::cuda::DeviceBuffer<double> positions_, device_weights_;
  tomo::cuda::DeviceBuffer<float> image_;
  tomo::cuda::DeviceBuffer<float2> linear_table_;
  tomo::cuda::CudaArray table_;
  tomo::cuda::TextureObject point_;
  std::vector<float2> host_table_;
  // The deferred kernel's lists (fbp_kernels.hpp FbpDeferredList), allocated on its first run.
  tomo::cuda::DeviceBuffer<unsigned long long> deferred_entries_;
  tomo::cuda::DeviceBuffer<unsigned> deferred_counts_, deferred_flag_;
  unsigned deferred_per_block_ = 0;
  bool deferred_overflow_ = false, deferred_logged_ = false;
};

}  // namespace tomo::oat
