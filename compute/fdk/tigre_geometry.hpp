// TIGRE's cone-beam geometry fields as views, in the order of TIGRE's Python interface: DSD and
// DSO (mm, one value or one per view), nDetector and dDetector (rows, columns) = (v, u),
// offDetector (v, u) (mm, the detector centre's shift), rotDetector (rad, about x, y and z of a
// view at angle 0: yaw, pitch, roll), nVoxel, sVoxel and offOrigin (z, y, x), COR (mm), and the
// angles (rad; one per view, or three: TIGRE's ZYZ Euler angles α, θ, ψ). At angle α the source
// is at DSO·(cos α, sin α, 0), columns run along (−sin α, cos α, 0) and the stored rows along +z,
// as in our C-arm; TIGRE's projections are (angles, rows, cols) and its image (z, y, x), x fastest.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "compute/core/volume.hpp"
#include "compute/fdk/cone_view.hpp"

namespace tomo {
class Scene;
}

namespace tomo::fdk {

struct TigreGeometry {
  std::vector<double> DSD{1536.0}, DSO{1000.0};  // one value, or one per view
  std::array<int, 2> nDetector{512, 512};
  std::array<double, 2> dDetector{0.8, 0.8};
  std::vector<std::array<double, 2>> offDetector{{0.0, 0.0}};
  std::vector<std::array<double, 3>> rotDetector{{0.0, 0.0, 0.0}};
  std::array<int, 3> nVoxel{512, 512, 512};
  std::array<double, 3> sVoxel{256.0, 256.0, 256.0};
  std::vector<std::array<double, 3>> offOrigin{{0.0, 0.0, 0.0}};
  std::vector<double> COR{0.0};
  std::vector<std::array<double, 3>> angles;  // (α, θ, ψ) per view; θ = ψ = 0 for a circular orbit

  int views() const { return static_cast<int>(angles.size()); }
  // The image grid: nVoxel voxels of sVoxel/nVoxel, centred on the world origin (offOrigin moves
  // the views instead, so the matrices see the image where TIGRE puts it).
  Grid3 grid() const;
  // InputError prefixed with `where` naming the field for a count other than 1 or the number of
  // views, a non-positive size or a distance with the detector nearer than the origin.
  std::vector<ConeView> cone_views(const std::string& where) const;
  std::vector<Mat34> matrices(const std::string& where) const;

  // The table under `prefix` (e.g. "fdk.tigre."): DSD, DSO, nDetector, dDetector, offDetector,
  // rotDetector, COR, angles (rad, one per view), nVoxel, sVoxel, offOrigin — each one value for
  // every view. InputError naming the key for a wrong count or range.
  static TigreGeometry from_scene(const Scene& scene, const std::string& prefix);
};

}  // namespace tomo::fdk
