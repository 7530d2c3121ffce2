// TIGRE's geometry → views (see tigre_geometry.hpp). Each view follows TIGRE's own construction:
// the detector is tilted about its centre, moved along x to DSO − DSD and by offDetector, turned by
// the ZYZ Euler angles with the source, then everything is moved by −offOrigin and by COR along
// the view's column direction.
#include "compute/fdk/tigre_geometry.hpp"

#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"

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

TigreGeometry TigreGeometry::from_scene(const Scene& s, const std::string& prefix) {
  TigreGeometry t;
  const auto list = [&](const char* name, std::size_t n, std::vector<double> fallback) {
    const std::string key = prefix + name;
    std::vector<double> v = s.get<std::vector<double>>(key, fallback);
    if (v.size() != n) throw InputError(str_cat(s.where(key), " takes ", n, " numbers, got ", v.size()));
    for (const double x : v)
      if (!std::isfinite(x) || std::abs(x) > 1e7) throw InputError(str_cat(s.where(key), ": ", x, " is out of range"));
    return v;
  };
  t.DSD = {s.get_in_range(prefix + "DSD", 1536.0, 1e-3, 1e7)};
  t.DSO = {s.get_in_range(prefix + "DSO", 1000.0, 1e-3, 1e7)};
  const auto nd = list("nDetector", 2, {512, 512}), dd = list("dDetector", 2, {0.8, 0.8});
  const auto od = list("offDetector", 2, {0, 0}), rd = list("rotDetector", 3, {0, 0, 0});
  const auto nv = list("nVoxel", 3, {512, 512, 512}), sv = list("sVoxel", 3, {256, 256, 256});
  const auto oo = list("offOrigin", 3, {0, 0, 0});
  for (int a = 0; a < 2; ++a) {
    if (nd[a] < 1 || nd[a] > 65536 || nd[a] != std::floor(nd[a]))
      throw InputError(str_cat(s.where(prefix + "nDetector"), ": ", nd[a], " is not a whole count in 1..65536"));
    t.nDetector[a] = static_cast<int>(nd[a]);
    t.dDetector[a] = dd[a];
  }
  for (int a = 0; a < 3; ++a) {
    if (nv[a] < 1 || nv[a] > 4096 || nv[a] != std::floor(nv[a]))
      throw InputError(str_cat(s.where(prefix + "nVoxel"), ": ", nv[a], " is not a whole count in 1..4096"));
    t.nVoxel[a] = static_cast<int>(nv[a]);
    t.sVoxel[a] = sv[a];
  }
  t.offDetector = {{od[0], od[1]}};
  t.rotDetector = {{rd[0], rd[1], rd[2]}};
  t.offOrigin = {{oo[0], oo[1], oo[2]}};
  t.COR = {s.get_in_range(prefix + "COR", 0.0, -1e5, 1e5)};
  const std::string akey = prefix + "angles";
  const auto angles = s.get<std::vector<double>>(akey, {});
  if (angles.empty() || angles.size() > 100000)
    throw InputError(str_cat(s.where(akey), " needs 1..100000 angles (radians), got ", angles.size()));
  for (const double a : angles) {
    if (!std::isfinite(a) || std::abs(a) > 1e3) throw InputError(str_cat(s.where(akey), ": angle ", a, " is out of range"));
    t.angles.push_back({a, 0.0, 0.0});
  }
  (void)t.cone_views(s.where(prefix.substr(0, prefix.size() - 1)));  // sizes and distances checked now
  return t;
}

}  // namespace tomo::fdk
