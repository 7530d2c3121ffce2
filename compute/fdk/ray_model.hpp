// The discrete ray model of ConeBeamProjector, shared by every backend's kernels: the ray of a
// detector pixel from a 3×4 matrix, clipped to the support of the trilinear volume, and sampled
// at the midpoints of equal pieces. The double loops here are the cpu reference.
#pragma once
#include <array>
#include <vector>

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
RaySamples ray_samples(const ViewRays& r, const Grid3& grid, double u, double v, double step_mm);

// The projector's spacing in mm for `options` on `grid`.
double step_mm(const Grid3& grid, const ProjectorOptions& options);

// Reference kernels in double (OpenMP inside): y = A x and x = Aᵀ y over `views` (empty: all),
// y n-major in the order of `views`.
void forward_reference(const ConeGeometry& g, double step_mm, const double* x, double* y, std::span<const int> views);
void back_reference(const ConeGeometry& g, double step_mm, const double* y, double* x, std::span<const int> views);

}  // namespace tomo::fdk
