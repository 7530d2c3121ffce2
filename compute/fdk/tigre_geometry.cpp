// TIGRE's geometry → views (see tigre_geometry.hpp). Each view follows TIGRE's own construction:
// the detector is tilted about its centre, moved along x to DSO − DSD and by offDetector, turned by
// the ZYZ Euler angles with the source, then everything is moved by −offOrigin and by COR along
// the view's column direction.
#include "compute/fdk/tigre_geometry.hpp"

#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::fdk {
namespace {

template <class T>
const T& pick(const std::vector<T>& v, int n, const char* field, int views, const std::string& where) {
  if (v.size() == 1) return v[0];
  if (static_cast<int>(v.size()) != views)
    throw InputError(str_cat(where, ": ", field, " has ", v.size(), " values; give 1 or one per view (", views, ")"));
  return v[static_cast<std::size_t>(n)];
}

Mat3d euler_zyz(double a, double t, double p) {
  const double ca = std::cos(a), sa = std::sin(a), ct = std::cos(t), st = std::sin(t), cp = std::cos(p),
               sp = std::sin(p);
  return {{{ca * ct * cp - sa * sp, -ca * ct * sp - sa * cp, ca * st},
           {sa * ct * cp + ca * sp, -sa * ct * sp + ca * cp, sa * st},
           {-st * cp, st * sp, ct}}};
}

}  // namespace

Grid3 TigreGeometry::grid() const {
  return Grid3::centred({nVoxel[2], nVoxel[1], nVoxel[0]},
                        {sVoxel[2] / nVoxel[2], sVoxel[1] / nVoxel[1], sVoxel[0] / nVoxel[0]});
}

std::vector<ConeView> TigreGeometry::cone_views(const std::string& where) const {
  const int n_views = views();
  if (n_views < 1) throw InputError(where + ": no angles");
  for (int a = 0; a < 2; ++a)
    if (nDetector[a] < 1 || !(dDetector[a] > 0) || !std::isfinite(dDetector[a]))
      throw InputError(str_cat(where, ": nDetector and dDetector must be positive, got (", nDetector[0], ", ",
                               nDetector[1], ") and (", dDetector[0], ", ", dDetector[1], ")"));
  for (int a = 0; a < 3; ++a)
    if (nVoxel[a] < 1 || !(sVoxel[a] > 0) || !std::isfinite(sVoxel[a]))
      throw InputError(where + ": nVoxel and sVoxel must be positive");
  std::vector<ConeView> out(static_cast<std::size_t>(n_views));
  for (int n = 0; n < n_views; ++n) {
    const double dsd = pick(DSD, n, "DSD", n_views, where), dso = pick(DSO, n, "DSO", n_views, where);
    if (!(dso > 0) || !(dsd > dso) || !std::isfinite(dsd))
      throw InputError(str_cat(where, ": need 0 < DSO < DSD, got DSO ", dso, " and DSD ", dsd, " (view ", n, ")"));
    const auto& off = pick(offDetector, n, "offDetector", n_views, where);  // (v, u)
    const auto& rot = pick(rotDetector, n, "rotDetector", n_views, where);  // (yaw, pitch, roll)
    const auto& org = pick(offOrigin, n, "offOrigin", n_views, where);      // (z, y, x)
    const double cor = pick(COR, n, "COR", n_views, where);
    const auto& ang = angles[static_cast<std::size_t>(n)];
    const Mat3d tilt = detector_rotation(rot[2], rot[1], rot[0]);
    const Mat3d turn = euler_zyz(ang[0], ang[1], ang[2]);
    // Stored row j runs along +z (TIGRE reads row nV−1−j from its top corner downwards).
    const Vec3d lu = tilt * Vec3d{0.0, dDetector[1], 0.0}, lv = tilt * Vec3d{0.0, 0.0, dDetector[0]};
    const Vec3d centre{dso - dsd, off[1], off[0]};
    const Vec3d shift{-org[2] - cor * std::sin(ang[0]), -org[1] + cor * std::cos(ang[0]), -org[0]};
    const auto place = [&](const Vec3d& p) {
      const Vec3d q = turn * p;
      return Vec3d{q[0] + shift[0], q[1] + shift[1], q[2] + shift[2]};
    };
    out[static_cast<std::size_t>(n)] = {place({dso, 0.0, 0.0}), place(centre), turn * lu, turn * lv};
  }
  return out;
}

std::vector<Mat34> TigreGeometry::matrices(const std::string& where) const {
  return view_matrices(cone_views(where), nDetector[1], nDetector[0], where);
}

}  // namespace tomo::fdk
