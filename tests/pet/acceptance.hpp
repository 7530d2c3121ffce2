// Image measures of the reconstruction layer's acceptance tests: background coefficient of
// variation and hot-sphere contrast recovery over voxel masks.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

namespace tomo::pet::test {

struct Regions {
  std::vector<std::uint8_t> hot, background;  // one per voxel
};

inline double region_mean(const std::vector<double>& x, const std::vector<std::uint8_t>& m) {
  double s = 0;
  std::size_t n = 0;
  for (std::size_t j = 0; j < x.size(); ++j)
    if (m[j]) s += x[j], ++n;
  return n ? s / double(n) : 0.0;
}

// Standard deviation over mean in the background.
inline double background_cv(const std::vector<double>& x, const Regions& r) {
  const double mean = region_mean(x, r.background);
  double v = 0;
  std::size_t n = 0;
  for (std::size_t j = 0; j < x.size(); ++j)
    if (r.background[j]) v += (x[j] - mean) * (x[j] - mean), ++n;
  return n > 1 && mean > 0 ? std::sqrt(v / double(n - 1)) / mean : 0.0;
}

// Contrast recovery (hot/background − 1) / (true ratio − 1).
inline double hot_recovery(const std::vector<double>& x, const Regions& r, double true_ratio) {
  return (region_mean(x, r.hot) / region_mean(x, r.background) - 1.0) / (true_ratio - 1.0);
}

}  // namespace tomo::pet::test
