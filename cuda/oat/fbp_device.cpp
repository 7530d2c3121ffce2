// FbpDevice (see fbp_device.hpp).
#include "cuda/oat/fbp_device.hpp"

#include <cuda_runtime.h>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/oat/params.hpp"
#include "cuda/core/check.hpp"
#include "cuda/oat/device_select.hpp"

namespace tomo::oat {

using namespace tomo::cuda;

namespace {
const OatGeometry& validated(const OatGeometry& g) {
  g.validate("oat cuda fbp");
  return g;
}
}  // namespace

FbpDevice::FbpDevice(const OatGeometry& g, Interpolation interpolation)
    : device_(select_cuda_device()),
      g_(validated(g)),
      mode_(interpolation == Interpolation::hardware ? cuda_detail::FbpMode::hardware : cuda_detail::FbpMode::exact),
      weights_(fbp_weights<double>(g_)) {
  const int Q = g.transducer_count(), K = g.time.samples;
  cudaDeviceProp prop{};
  TOMO_CUDA_CHECK(cudaGetDeviceProperties(&prop, current_device()));
  if (K - 1 > prop.maxTexture2D[0] || Q > prop.maxTexture2D[1])
    throw UnavailableError(str_cat("oat cuda fbp: a data texture of ", K - 1, " x ", Q, " exceeds the device's 2D ",
                                   "texture limit of ", prop.maxTexture2D[0], " x ", prop.maxTexture2D[1]));
  const Grid3& gr = g.grid;
  require_device_memory(16.0 * (K - 1) * Q + 4.0 * gr.count() + 16.0 * Q, "oat cuda fbp: data table and image");
  const double dt = g.time.dt_us(), c0 = g.c0_mm_per_us;
  params_.nx = gr.dims[0];
  params_.ny = gr.dims[1];
  params_.nz = gr.dims[2];
  params_.voxel = static_cast<float>(g.voxel_mm());
  params_.inv_c0dt = static_cast<float>(1.0 / (c0 * dt));
  params_.tau0 = static_cast<float>(g.time.t_min_us / dt);
  params_.lin_scale = static_cast<float>(c0 * dt);
  params_.diff_scale = 0.5f;
  params_.transducers = Q;
  params_.width = K - 1;
  // Positions relative to voxel 0's centre, subtracted in double.
  std::vector<float4> tr(Q);
  for (int q = 0; q < Q; ++q) {
    const Vec3d& s = g.transducers[q];
    tr[q] = make_float4(static_cast<float>(s[0] - gr.origin_mm[0]), static_cast<float>(s[1] - gr.origin_mm[1]),
                        static_cast<float>(s[2] - gr.origin_mm[2]), static_cast<float>(q) + 0.5f);
  }
  transducers_.resize(Q);
  transducers_.upload(tr);
  image_.resize(gr.count());
  linear_table_.resize(static_cast<std::size_t>(K - 1) * Q);
  table_ = CudaArray::of<float2>(ArrayExtent{static_cast<std::size_t>(K - 1), static_cast<std::size_t>(Q), 0});
  point_ = TextureObject(table_, TextureOptions::point_clamp().with_address(cudaAddressModeBorder));
  linear_ = TextureObject(table_, TextureOptions::linear_clamp().with_address(cudaAddressModeBorder));
}

void FbpDevice::upload(std::span<const double> p) {
  const std::size_t Q = g_.transducers.size(), K = static_cast<std::size_t>(g_.time.samples);
  if (p.size() != Q * K)
    throw InputError(str_cat("oat cuda fbp: ", p.size(), " pressure samples, expected ", Q, " x ", K));
  synchronize();  // the previous upload may still read host_table_
  host_table_.resize(Q * (K - 1));
  for (std::size_t q = 0; q < Q; ++q) {
    const double* row = p.data() + q * K;
    const double w = weights_[q];
    for (std::size_t k = 0; k + 1 < K; ++k)
      host_table_[q * (K - 1) + k] = make_float2(static_cast<float>(w * row[k]), static_cast<float>(w * (row[k + 1] - row[k])));
  }
  table_.copy_from_host(host_table_.data(), stream_);
  linear_table_.upload_async(host_table_.data(), host_table_.size(), stream_);
}

void FbpDevice::run(cuda_detail::FbpMode mode) {
  const TextureObject& tex = mode == cuda_detail::FbpMode::hardware ? linear_ : point_;
  cuda_detail::launch_fbp(params_, transducers_.data(), tex, linear_table_.data(), image_.data(), mode, stream_);
}

void FbpDevice::run_fetch_probe() {
  cuda_detail::launch_fbp_fetch_probe(params_, transducers_.data(), point_, image_.data(), stream_);
}

std::vector<float> FbpDevice::image() const {
  synchronize();
  return image_.to_host();
}

}  // namespace tomo::oat
