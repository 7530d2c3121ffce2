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

std::vector<std::uint8_t> fov_mask(const Grid3& grid, const std::vector<Mat34>& matrices, int sx, int sy) {
  std::vector<std::uint8_t> mask(grid.count(), 1);
#pragma omp parallel for schedule(static)
  for (int k = 0; k < grid.dims[2]; ++k)
    for (int j = 0; j < grid.dims[1]; ++j)
      for (int i = 0; i < grid.dims[0]; ++i) {
        const auto c = grid.centre(i, j, k);
        std::uint8_t in = 1;
        for (const Mat34& A : matrices) {
          const auto p = A.project(c[0], c[1], c[2]);
          if (!(p.w > 0 && p.u >= 0 && p.u <= sx - 1 && p.v >= 0 && p.v <= sy - 1)) {
            in = 0;
            break;
          }
        }
        mask[grid.index(i, j, k)] = in;
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
