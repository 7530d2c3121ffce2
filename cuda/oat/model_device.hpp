// H_int = H_eir·D·H_srt and its transpose on one CUDA device with every vector resident (α, the
// shell samples g, p, u; the volume also as a 3D texture for the hardware fetch). Where the
// transducer array and the grid are invariant under a quarter turn about z (plan_srt_symmetry), the
// exact forward and transpose serve the four transducers of an orbit per patch
// (launch_srt_symmetric, launch_srt_symmetric_adjoint: float atomics); otherwise, and with
// ModelOptions::reproducible, H_srtᵀ is the gather over tiles of voxels (fixed-point sums, the same
// bits every run). What the `cuda` Model backend and the device-array model of the Python module run.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "compute/oat/geometry.hpp"
#include "compute/oat/kernel_math.hpp"
#include "compute/oat/model.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/pinned_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/core/texture.hpp"
#include "cuda/oat/srt_kernels.hpp"

namespace tomo::oat {

class ModelDevice {
 public:
  // On CUDA device `device` (runtime_options().cuda_device when < 0).
  ModelDevice(const OatGeometry& g, const ModelOptions& o, int device = -1);

  void upload_alpha(std::span<const double> alpha);  // α (grid order) → device
  void upload_data(std::span<const double> u);       // u (Q·K) → device
  // The same from, and α / u into, device memory of this device (device-to-device copies on
  // stream(); the store_* wait for it).
  void load_alpha(const float* alpha);
  void load_data(const float* u);
  void store_alpha(float* alpha) const;
  void store_data(float* u) const;
  void forward();  // u = H α on the device
  void adjoint();  // α = Hᵀ u on the device
  std::vector<float> alpha() const;  // wait for the stream
  std::vector<float> data() const;
  // The same into double host vectors of voxels() / data_samples() values, through the reused
  // page-locked staging buffer (what the `cuda` Model returns each call; no allocation).
  void download_alpha(std::span<double> alpha);
  void download_data(std::span<double> u);

  std::size_t voxels() const { return alpha_.size(); }
  std::size_t data_samples() const { return u_.size(); }
  cudaStream_t stream() const { return stream_.get(); }
  void synchronize() const { stream_.synchronize(); }
  const std::string& device() const { return device_; }
  std::string describe() const;  // the interpolation, the symmetry used and the device
  bool symmetric() const { return symmetric_; }
  bool symmetric_adjoint() const { return symmetric_adjoint_; }

 private:
  std::string device_;
  cuda_detail::SrtFetch fetch_;
  cuda_detail::SrtParams srt_{};
  cuda_detail::GatherParams gather_{};
  cuda_detail::TimeParams time_{};
  tomo::cuda::Stream stream_;
  tomo::cuda::DeviceBuffer<ShellFrame<float>> frames_;
  tomo::cuda::DeviceBuffer<float> taps_, alpha_, g_, p_, u_;
  tomo::cuda::DeviceBuffer<float> partial_;  // the gather's per-chunk images (several chunks only)
  tomo::cuda::DeviceBuffer<double> fixed_;   // the gather's fixed-point scale (srt_kernels.hpp GatherParams)
  tomo::cuda::DeviceBuffer<float2> trig_;    // the gather's azimuth table
  // The quarter-turn symmetry (compute/oat/srt_symmetry.hpp) where the geometry has it and the
  // forward is exact: the orbits' passes, and the image interleaved with its turns.
  bool symmetric_ = false;
  bool symmetric_adjoint_ = false;  // symmetric_ and not ModelOptions::reproducible
  cuda_detail::SymmetricParams sym_{};
  tomo::cuda::DeviceBuffer<SymmetryPass<float>> passes_;
  tomo::cuda::DeviceBuffer<int> orbit_first_;
  tomo::cuda::DeviceBuffer<float4> c4_;
  int taps_count_ = 0;
  tomo::cuda::CudaArray volume_;  // α for the texture unit (hardware)
  tomo::cuda::TextureObject volume_tex_;
  // Page-locked float staging for the double host vectors, max(voxels, data samples) long: a
  // PLS iteration moves u (Q·K floats) both ways once, so pageable copies and a fresh vector per
  // call cost time at the paper scene's 32768 transducers.
  tomo::cuda::PinnedBuffer<float> staging_;
  void stage_to_host(const tomo::cuda::DeviceBuffer<float>& from, std::span<double> to);
};

}  // namespace tomo::oat
