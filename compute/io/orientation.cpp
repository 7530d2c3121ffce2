// Reorientation by axis permutation and flips only: the sample values are never
// interpolated, so reading an LPS file and writing it back loses nothing.
#include "compute/io/orientation.hpp"

#include <cmath>

#include "compute/core/error.hpp"

namespace tomo {
namespace {

struct AxisMap {
  std::array<int, 3> row{-1, -1, -1};     // world axis of each file axis
  std::array<int, 3> sign{1, 1, 1};
  std::array<double, 3> spacing{1, 1, 1};
  std::string problem;                    // empty when the map is a signed permutation
};

// Each file axis along one world axis; zero columns of size-1 axes take the axis left over.
AxisMap axis_map(const Affine3& a, const std::array<int, 3>* dims) {
  AxisMap out;
  std::array<bool, 3> used{false, false, false};
  std::array<bool, 3> degenerate{false, false, false};
  for (int c = 0; c < 3; ++c) {
    double norm2 = 0, best = 0;
    int r_best = -1;
    for (int r = 0; r < 3; ++r) {
      const double v = a.m[r][c];
      if (!std::isfinite(v)) return out.problem = "its voxel-to-world matrix has a non-finite entry", out;
      norm2 += v * v;
      if (std::fabs(v) > best) best = std::fabs(v), r_best = r;
    }
    if (norm2 == 0) {
      degenerate[c] = true;
      continue;
    }
    if (norm2 - best * best > 1e-8 * norm2)
      return out.problem = "axis " + std::to_string(c) + " is oblique (not along x, y or z)", out;
    if (used[r_best]) return out.problem = "two axes point along the same world axis", out;
    used[r_best] = true;
    out.row[c] = r_best;
    out.sign[c] = a.m[r_best][c] < 0 ? -1 : 1;
    out.spacing[c] = best;
  }
  for (int c = 0; c < 3; ++c) {
    if (!degenerate[c]) continue;
    if (dims && (*dims)[c] != 1) return out.problem = "axis " + std::to_string(c) + " has zero length", out;
    for (int r = 0; r < 3; ++r)
      if (!used[r]) { used[r] = true, out.row[c] = r; break; }
  }
  return out;
}

}  // namespace

Affine3 affine_from_quaternion(double b, double c, double d, double qfac, const std::array<double, 3>& pixdim,
                               const std::array<double, 3>& offset) {
  double a2 = 1.0 - (b * b + c * c + d * d);
  double a = 0;
  if (a2 < 1e-7) {  // nifti1.h: a = 0, (b, c, d) renormalised
    const double n = std::sqrt(b * b + c * c + d * d);
    if (n > 0) b /= n, c /= n, d /= n;
  } else {
    a = std::sqrt(a2);
  }
  const double R[3][3] = {{a * a + b * b - c * c - d * d, 2 * (b * c - a * d), 2 * (b * d + a * c)},
                          {2 * (b * c + a * d), a * a + c * c - b * b - d * d, 2 * (c * d - a * b)},
                          {2 * (b * d - a * c), 2 * (c * d + a * b), a * a + d * d - c * c - b * b}};
  const double q = qfac < 0 ? -1.0 : 1.0;
  Affine3 out;
  for (int r = 0; r < 3; ++r) {
    for (int col = 0; col < 3; ++col) out.m[r][col] = R[r][col] * pixdim[col] * (col == 2 ? q : 1.0);
    out.m[r][3] = offset[r];
  }
  return out;
}

std::string orientation_code(const Affine3& a) {
  const AxisMap m = axis_map(a, nullptr);
  if (!m.problem.empty()) return "oblique";
  static const char kPos[3] = {'R', 'A', 'S'}, kNeg[3] = {'L', 'P', 'I'};
  std::string code;
  for (int c = 0; c < 3; ++c) code += m.sign[c] > 0 ? kPos[m.row[c]] : kNeg[m.row[c]];
  return code;
}

VolumeF reorient_to_ras(std::vector<float> data, const std::array<int, 3>& dims, const Affine3& a,
                        const std::string& what) {
  const AxisMap m = axis_map(a, &dims);
  if (!m.problem.empty())
    throw InputError(what + ": orientation not supported: " + m.problem +
                     "; only axis permutations and flips are read (resample an oblique image to an "
                     "axis-aligned grid first)");
  Grid3 g;
  std::array<int, 3> first{};  // file index that becomes output index 0 along each file axis
  for (int c = 0; c < 3; ++c) {
    const int r = m.row[c];
    g.dims[r] = dims[c];
    g.voxel_mm[r] = m.spacing[c];
    first[c] = m.sign[c] < 0 ? dims[c] - 1 : 0;
  }
  for (int r = 0; r < 3; ++r) {
    g.origin_mm[r] = a.m[r][3];
    for (int c = 0; c < 3; ++c) g.origin_mm[r] += a.m[r][c] * first[c];
  }
  VolumeF v;
  v.grid = g;
  const bool identity = m.row == std::array<int, 3>{0, 1, 2} && m.sign == std::array<int, 3>{1, 1, 1};
  if (identity) {
    v.data = std::move(data);
    return v;
  }
  v.data.resize(data.size());
  #pragma omp parallel for schedule(static) if (data.size() > (1u << 20))
  for (int k = 0; k < dims[2]; ++k)
    for (int j = 0; j < dims[1]; ++j)
      for (int i = 0; i < dims[0]; ++i) {
        const int in[3] = {i, j, k};
        int o[3];
        for (int c = 0; c < 3; ++c) o[m.row[c]] = m.sign[c] < 0 ? dims[c] - 1 - in[c] : in[c];
        v.data[g.index(o[0], o[1], o[2])] =
            data[static_cast<std::size_t>(i) + static_cast<std::size_t>(dims[0]) * (j + static_cast<std::size_t>(dims[1]) * k)];
      }
  return v;
}

}  // namespace tomo
