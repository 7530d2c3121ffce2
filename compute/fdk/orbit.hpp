// Users' projection matrices → what FDK needs of them: each matrix scaled so that w = 1 at the
// world origin (then RabbitCT's 1/w² is FDK's distance weight), and the circular orbit about the
// z axis that they describe (source distance, focal length and central-ray pixel averaged over
// the views, the source angle of every view), from which the cosine, Parker and ramp weights come.
#pragma once
#include <string>
#include <vector>

#include "compute/fdk/geometry.hpp"
#include "compute/fdk/matrix.hpp"

namespace tomo::fdk {

struct FittedOrbit {
  // For the weights only, in pixel units (pixel_mm = 1, source_det_mm = focal length in pixels,
  // source_iso_mm = mean source–origin depth in mm); angles_deg measured in the rotation's sense.
  CArmGeometry geometry;
  std::vector<Mat34> matrices;  // normalised copies of the input, in its order
  double source_iso_spread = 0;  // (max − min) / mean of the per-view source depth
  double focal_spread = 0;       // ... of the per-view focal length (pixels)
  double source_z_spread_mm = 0;
};

// InputError prefixed with `where` (the file) for a matrix whose left 3×3 part is singular, a
// view that sees the origin from behind or edge-on, views not in angular order, no rotation,
// or (with `parker`) an arc shorter than 180° + 2·fan half-angle. Warns when the views depart
// from one circular orbit (spreads above 2 %).
FittedOrbit fit_orbit(const std::vector<Mat34>& matrices, int sx, int sy, bool parker, const std::string& where);

}  // namespace tomo::fdk
