// RabbitCT metric and phantom error (see metrics.hpp; notes/rabbitct-facts.md).
#include "compute/fdk/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::fdk {

float to_hu(float f, const std::array<float, 2>& s) {
  // The runner's US_ROUND(x) = floorf(x + 0.5f) on a float expression; products and sums are
  // rounded to float one by one (no fused multiply-add, see docs/fdk.md).
  if (!(f > 0.0f)) return 0.0f;
  volatile float scaled = s[0] * f;  // volatile: keeps the compiler from contracting to an FMA
  float hu = std::floor(scaled + s[1] + 0.5f);
  if (hu > 4095.0f) hu = 4095.0f;
  return hu;
}

std::vector<float> to_hu(const VolumeF& v, const std::array<float, 2>& s) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = to_hu(v.data[i], s);
  return out;
}

namespace {

template <class Ref>
RabbitMetric metric_of(const std::vector<float>& t, const std::vector<Ref>& r) {
  if (t.size() != r.size() || t.empty())
    throw Error(str_cat("RabbitCT metric: volume sizes differ (", t.size(), " vs ", r.size(), ")"));
  RabbitMetric m;
  double sum = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    // As the runner: the error and its square in float, summed in double; bin = floor(|e|), capped.
    const float e = t[i] - static_cast<float>(r[i]);
    const float a = std::fabs(e);
    m.max_abs = std::max(m.max_abs, static_cast<double>(a));
    const float sq = e * e;
    sum += sq;
    const float bin = std::floor(a);
    ++m.histogram[bin < kRabbitHistogramBins - 1 ? static_cast<int>(bin) : kRabbitHistogramBins - 1];  // NaN: last
  }
  m.mse = sum / static_cast<double>(t.size());
  m.rmse = std::sqrt(m.mse);
  m.psnr_db = m.mse > 0 ? 10.0 * std::log10(4095.0 * 4095.0 / m.mse) : std::numeric_limits<double>::infinity();
  return m;
}

}  // namespace

RabbitMetric rabbit_metric(const std::vector<float>& t, const std::vector<std::uint16_t>& r) { return metric_of(t, r); }
RabbitMetric rabbit_metric(const std::vector<float>& t, const std::vector<float>& r) { return metric_of(t, r); }

namespace {

// Voxel centre c is seen by every projection: w > 0 and (u, v) on the detector.
bool seen_by_all(const std::array<double, 3>& c, const std::vector<Mat34>& matrices, int sx, int sy) {
  for (const Mat34& A : matrices) {
    const auto p = A.project(c[0], c[1], c[2]);
    if (!(p.w > 0 && p.u >= 0 && p.u <= sx - 1 && p.v >= 0 && p.v <= sy - 1)) return false;
  }
  return true;
}

// Along one column (x, y) every condition of seen_by_all is linear in z once multiplied by w > 0
// (w > 0, U ≥ 0, U ≤ (sx−1)·w, V ≥ 0, V ≤ (sy−1)·w with U, V, w linear in z): each projection sees
// one interval of z, and the column's voxels inside all of them are one run of k. Returns that
// run [k0, k1] of the column's nz voxels (k0 > k1: none), in real arithmetic.
std::pair<double, double> seen_z_range(double x, double y, const std::vector<Mat34>& matrices, int sx, int sy) {
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  auto keep = [&](double alpha, double beta) {  // alpha + beta·z ≥ 0
    if (beta > 0) lo = std::max(lo, -alpha / beta);
    else if (beta < 0) hi = std::min(hi, -alpha / beta);
    else if (alpha < 0) lo = std::numeric_limits<double>::infinity();
  };
  for (const Mat34& A : matrices) {
    const double w0 = A.a[2] * x + A.a[5] * y + A.a[11], wz = A.a[8];
    const double u0 = A.a[0] * x + A.a[3] * y + A.a[9], uz = A.a[6];
    const double v0 = A.a[1] * x + A.a[4] * y + A.a[10], vz = A.a[7];
    keep(w0, wz);
    keep(u0, uz);
    keep((sx - 1) * w0 - u0, (sx - 1) * wz - uz);
    keep(v0, vz);
    keep((sy - 1) * w0 - v0, (sy - 1) * wz - vz);
    if (lo > hi) break;
  }
  return {lo, hi};
}

}  // namespace

// The run of k per column from seen_z_range, with the voxels within two of its ends tested one by
// one (seen_by_all): the same mask as testing every voxel against every projection, in
// O(columns × projections) instead of O(voxels × projections) (94 s at 1024³ × 496 on 64 cores).
std::vector<std::uint8_t> fov_mask(const Grid3& grid, const std::vector<Mat34>& matrices, int sx, int sy) {
  std::vector<std::uint8_t> mask(grid.count(), 0);
  const int nz = grid.dims[2];
  const double z0 = grid.origin_mm[2], dz = grid.voxel_mm[2];
#pragma omp parallel for schedule(dynamic, 16)
  for (int j = 0; j < grid.dims[1]; ++j)
    for (int i = 0; i < grid.dims[0]; ++i) {
      const auto c = grid.centre(i, j, 0);
      const auto [lo, hi] = seen_z_range(c[0], c[1], matrices, sx, sy);
      if (!(lo <= hi)) continue;
      // The column's k with lo ≤ z_k ≤ hi, widened by two voxels for the rounding of either test.
      const double klo = dz > 0 ? (lo - z0) / dz : -1.0, khi = dz > 0 ? (hi - z0) / dz : double(nz);
      const int k0 = int(std::max(-1.0, std::min(double(nz), std::ceil(klo)))) - 2;
      const int k1 = int(std::max(-1.0, std::min(double(nz), std::floor(khi)))) + 2;
      for (int k = std::max(k0, 0); k <= std::min(k1, nz - 1); ++k) {
        const bool edge = !(dz > 0) || k <= k0 + 4 || k >= k1 - 4;
        mask[grid.index(i, j, k)] = !edge || seen_by_all(grid.centre(i, j, k), matrices, sx, sy);
      }
    }
  return mask;
}

PhantomError phantom_error(const VolumeF& recon, const VolumeF& truth, const std::vector<std::uint8_t>& mask) {
  if (recon.size() != truth.size() || mask.size() != truth.size())
    throw Error("phantom_error: reconstruction, phantom and mask sizes differ");
  PhantomError e;
  double sum = 0, peak = 0;
  for (std::size_t i = 0; i < truth.size(); ++i) {
    peak = std::max(peak, std::abs(static_cast<double>(truth.data[i])));
    if (!mask[i]) continue;
    const double d = static_cast<double>(recon.data[i]) - truth.data[i];
    sum += d * d;
    ++e.voxels;
  }
  e.rmse = e.voxels ? std::sqrt(sum / e.voxels) : 0.0;
  e.nrmse = peak > 0 ? e.rmse / peak : 0.0;
  return e;
}

}  // namespace tomo::fdk
