// The field of view an ML-EM reconstructs: voxels whose sensitivity (Σ_l A_lv) is below a
// fraction of the largest are set to zero, as STIR and CASToR do. Near the edge of the field
// of view x·b/s divides by almost nothing: such voxels grew to 1.4× the hottest lesion and
// dominated MIPs and colour scales. Every ML-EM of the project uses this.
// The threshold alone is not enough: between the inscribed circle of a ring of planar modules
// and its polygon a voxel outside the object can keep just over 1 % of the largest sensitivity
// and become the hottest voxel of the image. So, as CASToR's cylindrical field of view does,
// voxels whose centre lies outside the scanner's cylinder (transaxial radius, axial extent) are
// held at zero as well (scene keys <problem>.fov_mask, default on).
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "compute/core/volume.hpp"

namespace tomo {

// Default of the scene keys <problem>.sensitivity_threshold: 1 % of the maximum.
inline constexpr double kDefaultSensitivityThreshold = 0.01;

// The absolute sensitivity below which a voxel is masked: `relative` × max(s). 0 masks nothing
// (but voxels with s <= 0, which ML-EM never updates).
template <class T>
T sensitivity_floor(std::span<const T> s, double relative) {
  T m = 0;
  for (T v : s) m = std::max(m, v);
  return static_cast<T>(relative * m);
}

// A scanner's field of view: the cylinder about an axis parallel to z through `axis_xy`, of
// `radius_mm`, between `z_min_mm` and `z_max_mm` (world mm). The default contains everything.
struct FieldOfView {
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  std::array<double, 2> axis_xy{0.0, 0.0};
  double radius_mm = kInf;
  double z_min_mm = -kInf, z_max_mm = kInf;

  bool bounded() const { return radius_mm < kInf || z_min_mm > -kInf || z_max_mm < kInf; }
  // A voxel belongs to the field of view when its centre does (boundary included).
  bool contains(const std::array<double, 3>& p) const {
    const double dx = p[0] - axis_xy[0], dy = p[1] - axis_xy[1];
    return dx * dx + dy * dy <= radius_mm * radius_mm && p[2] >= z_min_mm && p[2] <= z_max_mm;
  }
};

// Per voxel of `g` (index order of Grid3): 1 where the centre lies outside `fov`, else 0;
// empty when `fov` is unbounded (nothing is outside).
inline std::vector<std::uint8_t> outside_field_of_view(const Grid3& g, const FieldOfView& fov) {
  if (!fov.bounded()) return {};
  std::vector<std::uint8_t> out(g.count(), 0);
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) out[g.index(i, j, k)] = fov.contains(g.centre(i, j, k)) ? 0 : 1;
  return out;
}

// Sets s to 0 where `outside` says 1 (empty: nowhere); returns how many of them had s > 0.
template <class T>
std::size_t zero_outside(std::span<T> s, std::span<const std::uint8_t> outside) {
  std::size_t n = 0;
  for (std::size_t v = 0; v < outside.size() && v < s.size(); ++v)
    if (outside[v] && s[v] != T(0)) {
      if (s[v] > T(0)) ++n;
      s[v] = T(0);
    }
  return n;
}

}  // namespace tomo
