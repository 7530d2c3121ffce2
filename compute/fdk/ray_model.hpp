// The discrete ray model of ConeBeamProjector, shared by every backend's kernels: the ray of a
// detector pixel from a 3×4 matrix, clipped to the support of the trilinear volume, and sampled
// at the midpoints of equal pieces. The double loops here are the cpu reference.
#pragma once
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "compute/core/host_device.hpp"
#include "compute/fdk/forward_projector.hpp"

namespace tomo::fdk {

// One view's rays in grid-index space: the point of pixel (u, v) at depth t is
// base + t·(du·u + dv·v + d1), where depth t is the matrix's w (P·x = (t·u, t·v, t)).
// mm_per_t[u, v] = |direction| in mm (the length element).
struct ViewRays {
  std::array<double, 3> base{};  // the source, in index coordinates
  std::array<double, 3> du{}, dv{}, d1{};  // direction = M⁻¹(u, v, 1), in index units per t
  std::array<double, 3> du_mm{}, dv_mm{}, d1_mm{};  // the same in mm
};

// InputError when the matrix's left 3×3 part is singular (no source) or the grid's centre lies
// behind the source.
ViewRays view_rays(const Grid3& grid, const Mat34& P, int view);

// The samples of one ray: first index-space point, step between samples (index units), count,
// and the length weight of each sample (mm). count = 0 when the ray misses the volume.
struct RaySamples {
  std::array<double, 3> start{}, step{};
  int count = 0;
  double weight_mm = 0;
};
// Shared by the cpu reference and the CUDA kernels (double on both: the sample count is an
// integer of the chord length, so every backend must cut each ray identically).
TOMO_HD RaySamples ray_samples(const ViewRays& r, const std::array<int, 3>& dims, double u, double v, double step) {
  double d[3], dmm[3];
  for (int a = 0; a < 3; ++a) {
    d[a] = r.du[a] * u + r.dv[a] * v + r.d1[a];
    dmm[a] = r.du_mm[a] * u + r.dv_mm[a] * v + r.d1_mm[a];
  }
  // The trilinear volume is non-zero for index coordinates in (−1, n) on each axis.
  double t0 = 0.0, t1 = std::numeric_limits<double>::infinity();
  for (int a = 0; a < 3; ++a) {
    const double lo = -1.0, hi = dims[a];
    if (d[a] == 0.0) {
      if (!(r.base[a] > lo && r.base[a] < hi)) return {};
      continue;
    }
    double ta = (lo - r.base[a]) / d[a], tb = (hi - r.base[a]) / d[a];
    if (ta > tb) {
      const double s = ta;
      ta = tb;
      tb = s;
    }
    t0 = t0 > ta ? t0 : ta;
    t1 = t1 < tb ? t1 : tb;
  }
  if (!(t1 > t0)) return {};
  const double per_t = std::sqrt(dmm[0] * dmm[0] + dmm[1] * dmm[1] + dmm[2] * dmm[2]);
  const double length = (t1 - t0) * per_t;
  RaySamples s;
  const int pieces = static_cast<int>(std::ceil(length / step));
  s.count = pieces > 1 ? pieces : 1;
  const double dt = (t1 - t0) / s.count;
  for (int a = 0; a < 3; ++a) {
    s.start[a] = r.base[a] + (t0 + 0.5 * dt) * d[a];
    s.step[a] = dt * d[a];
  }
  s.weight_mm = dt * per_t;
  return s;
}
inline RaySamples ray_samples(const ViewRays& r, const Grid3& grid, double u, double v, double step_mm) {
  return ray_samples(r, grid.dims, u, v, step_mm);
}

// The voxel-driven approximation B ≈ Aᵀ that SIRT, OS-SART and TV use (as ASTRA's SIRT does):
// per view, the detector weighted by the density of its rays is sampled bilinearly at the
// voxel's projection (taps outside read 0). A pixel's rays fill the volume element
// t²·dt·du·dv / |det M| (x = c + t·M⁻¹(u, v, 1)), so summing A's row weights |M⁻¹(u, v, 1)|·dt
// over the pixels through a voxel of volume V gives V·|det M|·ρ(u, v) / t² with ρ(u, v) =
// |M⁻¹(u, v, 1)| = |x − c| / |t| (t the matrix's depth w). ρ is taken at the pixels, as Aᵀ
// weights each ray by its own length element: the detector is multiplied by V·|det M|·ρ(i, j)
// once per view (pixel_weight), and the gather per voxel is the FDK kernel's, 1/t² times a
// bilinear sample. Invariant to the matrix's scale; one gather per voxel and view instead of
// Aᵀ's scatter of every ray sample (eight atomic adds each on a GPU).
struct VoxelView {
  std::array<double, 12> p{};       // the matrix, row-major, signed so that t > 0 in front
  std::array<double, 3> source_mm{};
  double scale = 0;                 // V·|det M|
  std::array<double, 3> du_mm{}, dv_mm{}, d1_mm{};  // M⁻¹(u, v, 1) = du·u + dv·v + d1 (mm per t)
};
VoxelView voxel_view(const Grid3& grid, const Mat34& P, int view);

// The factor B applies to pixel (i, j) of view `v` before the gather: V·|det M|·ρ(i, j).
template <class T>
TOMO_HD T pixel_weight(const T* du, const T* dv, const T* d1, T scale, T i, T j) {
  const T a = du[0] * i + dv[0] * j + d1[0], b = du[1] * i + dv[1] * j + d1[1], c = du[2] * i + dv[2] * j + d1[2];
  return scale * std::sqrt(a * a + b * b + c * c);
}

// Detector position (u, v) of world point (x, y, z) and B's gather weight 1/t² there (0 behind
// the source).
template <class T>
TOMO_HD T voxel_weight(const T* p, T x, T y, T z, T& u, T& v) {
  const T t = p[8] * x + p[9] * y + p[10] * z + p[11];
  if (!(t > T(0))) return T(0);
  const T rt = T(1) / t;
  u = (p[0] * x + p[1] * y + p[2] * z + p[3]) * rt;
  v = (p[4] * x + p[5] * y + p[6] * z + p[7]) * rt;
  return rt * rt;
}

// The projector's spacing in mm for `options` on `grid`.
double step_mm(const Grid3& grid, const ProjectorOptions& options);

// Reference kernels in double (OpenMP inside): y = A x and x = Aᵀ y over `views` (empty: all),
// y n-major in the order of `views`.
void forward_reference(const ConeGeometry& g, double step_mm, const double* x, double* y, std::span<const int> views);
void back_reference(const ConeGeometry& g, double step_mm, const double* y, double* x, std::span<const int> views);
// x = B y (voxel-driven, see VoxelView), double, OpenMP over (z, y) rows.
void back_voxel_reference(const ConeGeometry& g, const double* y, double* x, std::span<const int> views);
// The same B on float arrays (widened to double, rounded once): the B of a backend without a
// kernel of its own, so that SIRT, OS-SART and TV take the same steps on every backend.
void back_voxel_on_host(const ConeGeometry& g, std::span<const float> y, std::span<float> x, std::span<const int> views);

}  // namespace tomo::fdk
