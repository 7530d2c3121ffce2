// gl-compute back-projection vs the cpu reference on llvmpipe (CI) or a GPU: exact interpolation
// within 1e-4 relative L2, the sampler's bilinear within 5e-3 (8-bit-weight budget, see
// interpolation_budget_test.cpp). Never skipped.
#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "fdk/backprojector.hpp"
#include "fdk/metrics.hpp"
#include "fdk/pipeline.hpp"
#include "fdk/simulate.hpp"
#include "small_stack.hpp"

using namespace tomo;
using namespace tomo::fdk;

namespace {

const ProjectionStack& data() { return test::small_stack(); }

VolumeF run(const std::string& backend, const Grid3& grid, const std::string& interp, int per_launch = 0) {
  auto op = BackendRegistry<ConeBeamBackprojector>::instance().create(backend);
  BackprojectorOptions o;
  o.interpolation = interp;
  o.projections_per_launch = per_launch;
  op->configure(o);
  return reconstruct(*op, grid, data(), 16);
}

}  // namespace

TEST(FdkGl, ExactInterpolationMatchesCpu) {
  const Grid3 grid = rabbit_grid(32);
  const VolumeF ref = run("cpu", grid, "exact");
  const VolumeF v = run("gl-compute", grid, "exact");
  const double err = relative_l2(v.data, ref.data);
  std::printf("gl-compute exact vs cpu: relative L2 %.3e\n", err);
  EXPECT_LE(err, 1e-4);
}

TEST(FdkGl, SamplerInterpolationIsCloseToCpu) {
  const Grid3 grid = rabbit_grid(32);
  const VolumeF ref = run("cpu", grid, "exact");
  const VolumeF v = run("gl-compute", grid, "hardware", 7);  // odd launch size too
  const double err = relative_l2(v.data, ref.data);
  std::printf("gl-compute sampler vs cpu: relative L2 %.3e\n", err);
  EXPECT_LE(err, 5e-3);
}

TEST(FdkGl, OddGridSizesMatchCpu) {
  const Grid3 grid = Grid3::centred({21, 13, 11}, {9.0, 11.0, 13.0});
  EXPECT_LE(relative_l2(run("gl-compute", grid, "exact").data, run("cpu", grid, "exact").data), 1e-4);
}
