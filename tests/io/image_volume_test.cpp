// read_image_volume (NIfTI or Interfile by extension) and fit_to_grid: the same image from both
// formats, unknown extensions refused, a different grid refused naming both grids (exact) or
// resampled (trilinear: a linear function is reproduced exactly, 0 outside the image).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "compute/io/image_volume.hpp"
#include "compute/io/interfile.hpp"
#include "compute/io/nifti.hpp"
#include "tests/support/input_errors.hpp"
#include "tests/support/temp_dir.hpp"

using namespace tomo;
using tomo::test::message_of;

namespace {

double linear(const std::array<double, 3>& p) { return 2.0 + 0.5 * p[0] - 0.25 * p[1] + 0.125 * p[2]; }

VolumeF sampled(const Grid3& g) {
  VolumeF v(g);
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) v.at(i, j, k) = static_cast<float>(linear(g.centre(i, j, k)));
  return v;
}

}  // namespace

TEST(ImageVolume, NiftiAndInterfileGiveTheSameVolume) {
  test::TempDir t;
  const VolumeF v = sampled(Grid3{{6, 5, 4}, {1.5, 1.5, 2.0}, {-3.75, -3.0, -3.0}});
  write_nifti(t.dir / "mu.nii.gz", v);
  write_interfile(t.dir / "mu.hv", v);
  for (const char* name : {"mu.nii.gz", "mu.hv"}) {
    const VolumeF r = read_image_volume(t.dir / name);
    EXPECT_EQ(r.grid.dims, v.grid.dims) << name;
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(r.grid.origin_mm[a], v.grid.origin_mm[a], 1e-6) << name;
    EXPECT_EQ(r.data, v.data) << name;
  }
  EXPECT_EQ(message_of([&] { (void)read_image_volume(t.dir / "mu.npy"); }),
            "image file '" + (t.dir / "mu.npy").string() +
                "': unknown kind; NIfTI (.nii, .nii.gz) or an Interfile header (.hv, .hdr) is read");
}

TEST(ImageVolume, ExactFitRefusesAnotherGridNamingBoth) {
  const Grid3 a{{4, 4, 2}, {2, 2, 2}, {-3, -3, -1}};
  const Grid3 b{{4, 4, 3}, {2, 2, 2}, {-3, -3, -2}};
  const VolumeF v = sampled(a);
  EXPECT_EQ(fit_to_grid(v, a, GridFit::exact, "x").data, v.data);
  EXPECT_EQ(message_of([&] { (void)fit_to_grid(v, b, GridFit::exact, "glpet.attenuation_map 'mu.hv'"); }),
            "glpet.attenuation_map 'mu.hv': the image has 4x4x2 voxels of 2 x 2 x 2 mm, first voxel at (-3, -3, -1) "
            "mm; the reconstruction grid has 4x4x3 voxels of 2 x 2 x 2 mm, first voxel at (-3, -3, -2) mm (resample "
            "it onto that grid first)");
}

TEST(ImageVolume, TrilinearFitReproducesALinearFunctionAndIsZeroOutside) {
  const Grid3 src{{9, 8, 7}, {2.0, 2.0, 3.0}, {-8.0, -7.0, -9.0}};
  const Grid3 dst{{13, 11, 9}, {1.1, 1.3, 1.7}, {-6.6, -6.5, -6.8}};  // inside src
  const VolumeF r = fit_to_grid(sampled(src), dst, GridFit::trilinear, "mu");
  double worst = 0;
  for (int k = 0; k < dst.dims[2]; ++k)
    for (int j = 0; j < dst.dims[1]; ++j)
      for (int i = 0; i < dst.dims[0]; ++i) worst = std::max(worst, std::fabs(r.at(i, j, k) - linear(dst.centre(i, j, k))));
  EXPECT_LT(worst, 1e-5);
  // A grid reaching beyond the image: 0 there, the interpolated value inside.
  const Grid3 wide{{3, 1, 1}, {10.0, 1.0, 1.0}, {-10.0, 0.0, 0.0}};
  const VolumeF w = fit_to_grid(sampled(src), wide, GridFit::trilinear, "mu");
  EXPECT_EQ(w.data[0], 0.0f);  // x = -10 < -8
  EXPECT_NEAR(w.data[1], linear({0, 0, 0}), 1e-6);
  EXPECT_EQ(w.data[2], 0.0f);  // x = 10 > 8
}
