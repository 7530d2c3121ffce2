// H_sph on one CUDA device with its vectors resident (α, ũ, the face points, c_l): shared by the
// `cuda` SphModel, its several-GPU form (each rank one SphDevice on its device) and bench_oat_sph.
#pragma once
#include <complex>
#include <span>
#include <string>
#include <vector>

#include "compute/oat/sph_model.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/oat/sph_kernels.hpp"

namespace tomo::oat {

class SphDevice {
 public:
  // On the current device (the caller selects it).
  SphDevice(const OatGeometry& g, const SphOptions& o);

  void upload_alpha(std::span<const double> alpha);
  void upload_data(std::span<const std::complex<double>> u);
  // ũ = H_sph α over the share's voxels (all of ũ written) / α = H_sphᵀ ũ over its transducers.
  void forward();
  void adjoint();
  void download_data(std::span<std::complex<double>> u) const;  // waits for the stream
  void download_alpha(std::span<double> alpha) const;

  float* data_floats() { return u_.data() ? reinterpret_cast<float*>(u_.data()) : nullptr; }
  std::size_t data_floats_count() const { return 2 * u_.size(); }
  float* alpha_floats() { return alpha_.data(); }
  std::size_t voxels() const { return alpha_.size(); }
  std::size_t samples() const { return u_.size(); }
  const cuda_detail::SphParams& params() const { return p_; }  // the kernels' parameters (device pointers)
  const float2* data_device() const { return u_.data(); }
  cudaStream_t stream() const { return stream_.get(); }
  void synchronize() const { stream_.synchronize(); }

 private:
  cuda_detail::SphParams p_{};
  std::int64_t v0_ = 0, v1_ = 0;
  int q0_ = 0, q1_ = 0;
  tomo::cuda::Stream stream_;
  tomo::cuda::DeviceBuffer<float4> points_;
  tomo::cuda::DeviceBuffer<float2> weights_, u_, w_;
  tomo::cuda::DeviceBuffer<float> alpha_;
  std::vector<float> staging_;
};

}  // namespace tomo::oat
