// oat inputs that are valid but degenerate, or far out of range, are refused naming what is wrong:
// an EIR of zeros, pressure data of zeros, transducers among the voxels, and positions from a
// file beyond the bounds of the scene's own (positions scaled by 10^8 crashed the run).
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/npy.hpp"
#include "compute/oat/acquisition.hpp"
#include "compute/oat/config.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::oat {
namespace {

namespace fs = std::filesystem;

// 8 × 8 × 8 voxels of 1 mm (± 4 mm) seen by 2 × 4 transducers (at the default 65 mm).
Scene scene(const std::string& body) {
  return Scene::load_string("problem = \"oat\"\n[oat]\ngrid = [8, 8, 8]\nvoxel_mm = 1.0\nrings = 2\nviews = 4\n"
                            "fs_mhz = 20.0\n" + body,
                            "o.toml");
}

std::string error_of(const std::string& body) {
  try {
    (void)acquire(OatConfig::from_scene(scene(body)));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// pressure.npy (Q × 16 samples, each `value`) and positions.npy (Q × 3) in `dir`; the scene lines.
std::string write_data(const fs::path& dir, const std::vector<std::array<double, 3>>& pos, double value) {
  std::vector<double> p(pos.size() * 16, value), xyz;
  for (const auto& r : pos) xyz.insert(xyz.end(), r.begin(), r.end());
  const std::size_t ps[2] = {pos.size(), 16}, xs[2] = {pos.size(), 3};
  write_npy(dir / "pressure.npy", std::span<const double>(p), ps);
  write_npy(dir / "positions.npy", std::span<const double>(xyz), xs);
  return str_cat("[oat.data]\nsource = \"npy\"\npressure = \"", (dir / "pressure.npy").string(), "\"\npositions = \"",
                 (dir / "positions.npy").string(), "\"\n");
}

const std::vector<std::array<double, 3>> kAround = {{20, 0, 0}, {-20, 0, 0}, {0, 20, 0}, {0, -20, 0}, {0, 0, 20}};

TEST(OatDegenerate, ValidDataAroundTheGridAreRead) {
  test::TempDir t;
  EXPECT_EQ(error_of(write_data(t.dir, kAround, 1.0)), "");
}

TEST(OatDegenerate, AnEirOfZerosIsRefused) {
  test::TempDir t;
  const std::vector<double> taps(5, 0.0);
  const std::size_t shape[1] = {5};
  write_npy(t.dir / "eir.npy", std::span<const double>(taps), shape);
  const std::string e = error_of(str_cat("[oat.eir]\nkind = \"file\"\nfile = \"", (t.dir / "eir.npy").string(), "\"\n"));
  EXPECT_NE(e.find("every EIR tap is 0"), std::string::npos) << e;
}

TEST(OatDegenerate, PressureOfZerosIsRefused) {
  test::TempDir t;
  const std::string e = error_of(write_data(t.dir, kAround, 0.0));
  EXPECT_NE(e.find("pressure.npy: every one of its 80 pressure samples is 0"), std::string::npos) << e;
}

TEST(OatDegenerate, TransducersInsideTheGridAreRefused) {
  const std::string ring = error_of("radius_mm = 3.0\n");  // the scene's rings × views inside the grid
  EXPECT_NE(ring.find("lies inside the voxel grid (8 x 8 x 8 mm about (0, 0, 0))"), std::string::npos) << ring;
  test::TempDir t;
  auto inside = kAround;
  inside[2] = {1.0, 2.0, -3.0};
  const std::string e = error_of(write_data(t.dir, inside, 1.0));
  EXPECT_NE(e.find("transducer 2 at (1, 2, -3) mm lies inside the voxel grid"), std::string::npos) << e;
}

TEST(OatDegenerate, PositionsBeyondTheSceneBoundsAreRefused) {
  test::TempDir t;
  auto far = kAround;
  for (auto& p : far)
    for (double& x : p) x *= 1e8;
  const std::string e = error_of(write_data(t.dir, far, 1.0));
  EXPECT_NE(e.find("transducer 0 at (2e+09, 0, 0) mm is 2e+09 mm from the grid centre, beyond the 100000 mm"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace tomo::oat
