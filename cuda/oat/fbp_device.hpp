// The oat FBP on one CUDA device with its data resident: the (P, D) table in a float2 texture (and
// in linear memory for the __ldg variant), the transducers, the image. Shared by the `cuda` Fbp
// backend, its GPU tests and bench_oat's probes.
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

class FbpDevice {
 public:
  // Selects runtime_options().cuda_device. Always the exact formula (see fbp_kernels.hpp); mode()
  // is exact (texture) unless the table exceeds the 2D texture limits (K − 1 wide, Q high):
  // exact_ldg then.
  FbpDevice(const OatGeometry& g);

  // p[q·K + k] (host, EIR-free pressure) → the table: (w_q·p_k, w_q·(p_{k+1} − p_k)) in double,
  // then float. Ordered on stream().
  void upload(std::span<const double> pressure);
  void run(cuda_detail::FbpMode mode);  // image = FBP (or a probe's output)
  void run_fetch_probe();
  std::vector<float> image() const;     // waits for the stream

  cuda_detail::FbpMode mode() const { return mode_; }
  const cuda_detail::FbpParams& params() const { return params_; }
  cudaStream_t stream() const { return stream_.get(); }
  void synchronize() const { stream_.synchronize(); }
  const std::string& device() const { return device_; }

 private:
  std::string device_;
  OatGeometry g_;
  cuda_detail::FbpMode mode_;
  cuda_detail::FbpParams params_{};
  std::vector<double> weights_;
  tomo::cuda::Stream stream_;
  tomo::cuda::DeviceBuffer<float4> transducers_;
  tomo::cuda::DeviceBuffer<double> positions_;
  tomo::cuda::DeviceBuffer<float> image_;
  tomo::cuda::DeviceBuffer<float2> linear_table_;  // the table again, for FbpMode::exact_ldg
  tomo::cuda::CudaArray table_;
  tomo::cuda::TextureObject point_;
  std::vector<float2> host_table_;
};

}  // namespace tomo::oat
