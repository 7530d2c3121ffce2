// ML-EM ([Toth2010] eq. (3)) with the GL backends on Monte-Carlo data of a hot sphere in an
// attenuating cylinder: each GL backend's reconstruction matches the cpu backend's (same
// data, same iterations), recovers the sphere at its place and lowers the NRMSE.
#include <gtest/gtest.h>

#include <cstdio>

#include "compute/glpet/cpu_projector.hpp"
#include "compute/glpet/metrics.hpp"
#include "compute/glpet/mlem.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "tests/glpet/gl_fixtures.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::glpet {
namespace {

constexpr int kIterations = 8;

struct Reference {
  SystemModel sys;
  std::vector<float> counts, truth, x_cpu;
  std::vector<double> err_cpu;
};

struct Recon {
  std::vector<float> x;
  std::vector<double> err;
};

Recon reconstruct(Projector& op, const Reference& ref) {
  Recon r;
  MlemOptions opt;
  opt.iterations = kIterations;
  opt.on_iteration = [&](int, const BackendBuffer& x) {
    r.err.push_back(nrmse(download(x), ref.truth));
    return true;
  };
  r.x = run_mlem(op, ref.counts, {}, opt).x;
  return r;
}

// Data and the cpu reconstruction, made once for both tests.
const Reference& reference() {
  static const Reference ref = [] {
    Reference r;
    // 12³ voxels of 2.67 mm (no sample whose lines hit detector edges exactly: see
    // gl_projector_test.cpp for grids that have such ties), K = 8: each test < 10 s on llvmpipe.
    r.sys = test::attenuating_system(12, 2, 8);
    Phantom act;
    Shape sphere;
    sphere.centre = {6, -4, 4};
    sphere.semi_axes = {5, 5, 5};
    sphere.value = 1.0;
    act.shapes.push_back(sphere);
    const VolumeF activity = act.voxelize(r.sys.grid, 2);
    McOptions mc;
    mc.histories = 400'000;
    mc.seed = 5;
    const McResult res = simulate(r.sys.scanner, r.sys.sigma_t, VoxelSource(activity), mc);
    r.counts = res.counts;
    double total = 0;
    for (float a : activity.data) total += a;
    r.truth.resize(activity.data.size());
    for (std::size_t v = 0; v < r.truth.size(); ++v) r.truth[v] = float(activity.data[v] / total * res.histories);
    CpuProjector cpu;
    cpu.configure(r.sys);
    Recon c = reconstruct(cpu, r);
    r.x_cpu = c.x;
    r.err_cpu = c.err;
    return r;
  }();
  return ref;
}

void check_backend(const std::string& name, double tolerance) {
  tomo::test::gl_context();
  const Reference& ref = reference();
  auto op = test::make_backend(name, ref.sys);
  const Recon r = reconstruct(*op, ref);
  const double diff = test::rel_l2(r.x, ref.x_cpu);
  std::printf("%s ML-EM, %d iterations: rel. L2 to cpu %.3g; NRMSE %.4f -> %.4f (cpu %.4f -> %.4f)\n", name.c_str(),
              kIterations, diff, r.err.front(), r.err.back(), ref.err_cpu.front(), ref.err_cpu.back());
  EXPECT_LT(diff, tolerance);
  ASSERT_EQ(r.err.size(), std::size_t(kIterations));
  for (int i = 1; i < kIterations; ++i) EXPECT_LT(r.err[i], r.err[i - 1]) << "iteration " << i + 1;
  EXPECT_NEAR(r.err.back(), ref.err_cpu.back(), 1e-3);
  const Vec3 c = centroid(ref.sys.grid, r.x), ct = centroid(ref.sys.grid, ref.truth);
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(c[a], ct[a], ref.sys.grid.voxel_mm[a]) << "axis " << a;  // one voxel
}

TEST(GlMlemGlpet, GlComputeReconstructionMatchesCpu) { check_backend("gl-compute", 1e-4); }

// The raster backend's lines equal the cpu's away from exact ties (gl_projector_test.cpp), so
// its reconstruction is held to the float tolerance scaled by the iterations' growth.
TEST(GlMlemGlpet, GlRasterReconstructionMatchesCpu) { check_backend("gl", 1e-3); }

}  // namespace
}  // namespace tomo::glpet
