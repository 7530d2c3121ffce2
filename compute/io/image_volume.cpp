// Image volumes by extension, and their fit to a problem's grid (exact or trilinear).
#include "compute/io/image_volume.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/io/interfile.hpp"
#include "compute/io/nifti.hpp"

namespace tomo {
namespace {

constexpr double kGridTolMm = 1e-4;

std::string lower_name(const std::filesystem::path& p) {
  std::string s = p.filename().string();
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool same_grid(const Grid3& a, const Grid3& b) {
  for (int i = 0; i < 3; ++i)
    if (a.dims[i] != b.dims[i] || std::fabs(a.voxel_mm[i] - b.voxel_mm[i]) > kGridTolMm ||
        std::fabs(a.origin_mm[i] - b.origin_mm[i]) > kGridTolMm)
      return false;
  return true;
}

// Linear interpolation weights along one axis at continuous index u: the two neighbours and the
// weight of the upper one; an index outside [0, n-1] has no neighbours (the value is 0 there),
// except that an axis of one voxel is constant across its own thickness.
bool axis_weights(double u, int n, int& i0, int& i1, double& w) {
  if (n == 1) {
    if (std::fabs(u) > 0.5) return false;
    i0 = i1 = 0, w = 0;
    return true;
  }
  if (u < 0 || u > n - 1) return false;
  i0 = std::min(static_cast<int>(std::floor(u)), n - 2);
  i1 = i0 + 1;
  w = u - i0;
  return true;
}

}  // namespace

VolumeF read_image_volume(const std::filesystem::path& path) {
  const std::string n = lower_name(path);
  if (ends_with(n, ".nii") || ends_with(n, ".nii.gz")) return read_nifti(path);
  if (ends_with(n, ".hv") || ends_with(n, ".hdr") || ends_with(n, ".h33")) return read_interfile(path);
  throw InputError("image file '" + path.string() +
                   "': unknown kind; NIfTI (.nii, .nii.gz) or an Interfile header (.hv, .hdr) is read");
}

std::string grid_text(const Grid3& g) {
  std::ostringstream s;
  s << g.dims[0] << "x" << g.dims[1] << "x" << g.dims[2] << " voxels of " << g.voxel_mm[0] << " x " << g.voxel_mm[1]
    << " x " << g.voxel_mm[2] << " mm, first voxel at (" << g.origin_mm[0] << ", " << g.origin_mm[1] << ", "
    << g.origin_mm[2] << ") mm";
  return s.str();
}

VolumeF fit_to_grid(const VolumeF& image, const Grid3& target, GridFit fit, const std::string& what) {
  if (same_grid(image.grid, target)) {
    VolumeF v = image;
    v.grid = target;
    return v;
  }
  if (fit == GridFit::exact)
    throw InputError(what + ": the image has " + grid_text(image.grid) + "; the reconstruction grid has " +
                     grid_text(target) + " (resample it onto that grid first)");
  const Grid3& s = image.grid;
  VolumeF out(target, 0.0f);
  for (int k = 0; k < target.dims[2]; ++k)
    for (int j = 0; j < target.dims[1]; ++j)
      for (int i = 0; i < target.dims[0]; ++i) {
        const auto c = target.centre(i, j, k);
        int lo[3], hi[3];
        double w[3];
        bool inside = true;
        for (int a = 0; a < 3 && inside; ++a)
          inside = axis_weights((c[a] - s.origin_mm[a]) / s.voxel_mm[a], s.dims[a], lo[a], hi[a], w[a]);
        if (!inside) continue;
        double v = 0;
        for (int dz = 0; dz < 2; ++dz)
          for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx) {
              const double wt = (dx ? w[0] : 1 - w[0]) * (dy ? w[1] : 1 - w[1]) * (dz ? w[2] : 1 - w[2]);
              if (wt != 0) v += wt * image.at(dx ? hi[0] : lo[0], dy ? hi[1] : lo[1], dz ? hi[2] : lo[2]);
            }
        out.at(i, j, k) = static_cast<float>(v);
      }
  return out;
}

VolumeF read_image_on_grid(const std::filesystem::path& path, const Grid3& target, GridFit fit, const std::string& what) {
  return fit_to_grid(read_image_volume(path), target, fit, what);
}

}  // namespace tomo
