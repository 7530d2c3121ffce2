// The field of view an ML-EM reconstructs: voxels whose sensitivity (Σ_l A_lv) is below a
// fraction of the largest are set to zero, as STIR and CASToR do. Near the edge of the field
// of view x·b/s divides by almost nothing: such voxels grew to 1.4× the hottest lesion and
// dominated MIPs and colour scales. Every ML-EM of the project uses this.
#pragma once
#include <algorithm>
#include <span>

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

}  // namespace tomo
