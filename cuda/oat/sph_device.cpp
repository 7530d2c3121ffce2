// SphDevice (see sph_device.hpp): float copies of the face points and c_l, the share's ranges.
#include "cuda/oat/sph_device.hpp"

#include <cuda_runtime.h>

#include <algorithm>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/oat/params.hpp"
#include "compute/oat/sph_spectrum.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"

namespace tomo::oat {

SphDevice::SphDevice(const OatGeometry& g, const SphOptions& o) {
  g.validate("oat cuda H_sph");
  o.setup.validate(g, "oat cuda H_sph");
  if (o.setup.frequencies > cuda_detail::kSphMaxFrequencies)
    throw InputError(str_cat("oat cuda H_sph: at most ", cuda_detail::kSphMaxFrequencies, " frequencies, got ",
                             o.setup.frequencies));
  const int Q = g.transducer_count(), L = o.setup.frequencies, P = o.setup.face_points();
  const std::size_t N = g.grid.count(), QL = std::size_t(Q) * L;
  tomo::cuda::require_device_memory(4.0 * N + 16.0 * QL + 16.0 * Q * P + 8.0 * L, "oat cuda H_sph: α, ũ, face points");
  const auto pts = face_points(g, o.setup);
  std::vector<float4> p4(pts.size());
  for (std::size_t i = 0; i < pts.size(); ++i) p4[i] = make_float4(float(pts[i][0]), float(pts[i][1]), float(pts[i][2]), 0.f);
  const auto c = sph_weights(g, o.setup);
  std::vector<float2> c2(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) c2[i] = make_float2(float(c[i].real()), float(c[i].imag()));
  points_.resize(p4.size());
  points_.upload(p4);
  weights_.resize(c2.size());
  weights_.upload(c2);
  u_.resize(QL);
  w_.resize(QL);
  alpha_.resize(N);
  p_.grid = grid_params<float>(g);
  p_.points = points_.data();
  p_.weights = weights_.data();
  p_.transducers = Q;
  p_.points_per_face = P;
  p_.frequencies = L;
  p_.f0_over_c0 = float(o.setup.f_mhz(g, 0) / g.c0_mm_per_us);
  p_.df_over_c0 = float(o.setup.df_mhz(g) / g.c0_mm_per_us);
  v0_ = std::clamp<std::int64_t>(o.share.voxel_begin, 0, std::int64_t(N));
  v1_ = o.share.voxel_end < 0 ? std::int64_t(N) : std::clamp<std::int64_t>(o.share.voxel_end, v0_, std::int64_t(N));
  q0_ = std::clamp(o.share.transducer_begin, 0, Q);
  q1_ = o.share.transducer_end < 0 ? Q : std::clamp(o.share.transducer_end, q0_, Q);
}

void SphDevice::upload_alpha(std::span<const double> alpha) {
  if (alpha.size() != alpha_.size())
    throw Error(str_cat("oat cuda H_sph: α of ", alpha.size(), " voxels, the grid has ", alpha_.size()));
  synchronize();  // an earlier async copy may still read staging_
  staging_.assign(alpha.begin(), alpha.end());
  alpha_.upload_async(staging_.data(), staging_.size(), stream_);
}

void SphDevice::upload_data(std::span<const std::complex<double>> u) {
  if (u.size() != u_.size()) throw Error(str_cat("oat cuda H_sph: ũ of ", u.size(), " samples, expected ", u_.size()));
  synchronize();
  staging_.resize(2 * u.size());
  for (std::size_t i = 0; i < u.size(); ++i) staging_[2 * i] = float(u[i].real()), staging_[2 * i + 1] = float(u[i].imag());
  TOMO_CUDA_CHECK(cudaMemcpyAsync(u_.data(), staging_.data(), staging_.size() * sizeof(float), cudaMemcpyHostToDevice,
                                  stream_));
}

void SphDevice::forward() { cuda_detail::launch_sph_forward(p_, alpha_.data(), v0_, v1_, u_.data(), stream_); }

void SphDevice::adjoint() { cuda_detail::launch_sph_adjoint(p_, u_.data(), w_.data(), q0_, q1_, alpha_.data(), stream_); }

void SphDevice::download_data(std::span<std::complex<double>> u) const {
  if (u.size() != u_.size()) throw Error(str_cat("oat cuda H_sph: ũ of ", u.size(), " samples, expected ", u_.size()));
  std::vector<float2> h(u_.size());
  TOMO_CUDA_CHECK(cudaMemcpyAsync(h.data(), u_.data(), u_.bytes(), cudaMemcpyDeviceToHost, stream_));
  synchronize();
  for (std::size_t i = 0; i < h.size(); ++i) u[i] = {h[i].x, h[i].y};
}

void SphDevice::download_alpha(std::span<double> alpha) const {
  if (alpha.size() != alpha_.size())
    throw Error(str_cat("oat cuda H_sph: α of ", alpha.size(), " voxels, the grid has ", alpha_.size()));
  std::vector<float> h(alpha_.size());
  TOMO_CUDA_CHECK(cudaMemcpyAsync(h.data(), alpha_.data(), alpha_.bytes(), cudaMemcpyDeviceToHost, stream_));
  synchronize();
  std::copy(h.begin(), h.end(), alpha.begin());
}

}  // namespace tomo::oat
