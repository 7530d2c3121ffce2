// The GL ConeBeamProjector backends (gl-compute, gl) beyond the contract suite: batches of more
// views than one dispatch/draw takes, a longer ray step, SIRT and CGLS on each against the cpu's,
// and the refusal where software GL would cut a ray's loop short.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/scene.hpp"
#include "compute/fdk/forward_projector.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/iterative.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/io/output_dir.hpp"
#include "renderer/gl/engine.hpp"
#include "tests/support/backend_contract.hpp"
#include "tests/support/gl_test.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::fdk {
namespace {

// The contract suite's problem: an odd grid seen by 9 views of a 24×19 detector that covers it.
ConeGeometry contract_geometry() {
  CArmGeometry c;
  c.projections = 9;
  c.arc_deg = 220.0;
  c.sx = 24;
  c.sy = 19;
  c.pixel_mm = 20.0;
  return {Grid3::centred({21, 13, 11}, {9.0, 11.0, 13.0}), c.sx, c.sy, c.matrices()};
}

std::vector<float> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& e : v) e = d(rng);
  return v;
}

// 70 views (more than the 64 one dispatch or draw takes) of a 10×7 detector over a 9×8×6 grid.
ConeGeometry many_views() {
  CArmGeometry c;
  c.projections = 70;
  c.arc_deg = 360.0;
  c.sx = 10;
  c.sy = 7;
  c.pixel_mm = 40.0;
  return {Grid3::centred({9, 8, 6}, {12.0, 12.0, 15.0}), c.sx, c.sy, c.matrices()};
}

std::unique_ptr<ConeBeamProjector> make(const std::string& name, const ConeGeometry& g,
                                        const ProjectorOptions& o = {}) {
  auto op = BackendRegistry<ConeBeamProjector>::instance().create(name);
  op->configure(o);
  op->setup(g);
  return op;
}

// How far gl's A may be from the cpu's: its samples are the texture unit's trilinear filter,
// fp32 on software GL (llvmpipe) but with 8-bit fixed-point weights on NVIDIA (measured on an
// H100: 2.7e-4 to 4.3e-4 relative L2). gl-compute's weights are fp32 everywhere. (Aᵀ is the fp32
// scatter on both backends.)
constexpr double kExact = 1e-5;
constexpr double kFixedPointFilter = 1e-3;

class GlProjector : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { (void)tomo::test::gl_context(); }
  double a_tolerance() const { return GetParam() == "gl" && !gl::availability().software ? kFixedPointFilter : kExact; }
  // Iterates differ from the cpu's by about the operator's error.
  double iterate_tolerance() const { return std::max(1e-4, 10 * a_tolerance()); }
};

TEST_P(GlProjector, BatchesOfManyViewsMatchCpu) {
  const ConeGeometry g = many_views();
  auto op = make(GetParam(), g), ref = make("cpu", g);
  const auto x = random_vector(g.grid.count(), 5), y = random_vector(g.views() * g.image_size(), 6);
  std::vector<float> a(y.size()), a_ref(y.size()), b(x.size()), b_ref(x.size());
  op->forward(x, a);
  ref->forward(x, a_ref);
  op->back(y, b);
  ref->back(y, b_ref);
  EXPECT_LE(relative_l2(a, a_ref), a_tolerance());
  EXPECT_LE(relative_l2(b, b_ref), kExact);
  // The last view sits in the second batch: its image must be its own, not the first batch's.
  const std::size_t last = (g.views() - 1) * g.image_size();
  const std::span<const float> image(a.data() + last, g.image_size()), image_ref(a_ref.data() + last, g.image_size());
  EXPECT_LE(relative_l2(image, image_ref), 3 * a_tolerance());
}

TEST_P(GlProjector, SubsetsOfViewsInAnyOrderMatchCpuBothWays) {
  // 68 of the 70 views, in reverse interleaved order (OS-SART's sub-operators), over two batches.
  const ConeGeometry g = many_views();
  std::vector<int> views;
  for (int n = g.views() - 1; n >= 0; n -= 2) views.push_back(n);
  for (int n = g.views() - 2; n >= 4; n -= 2) views.push_back(n);
  ASSERT_EQ(views.size(), 68u);
  auto op = make(GetParam(), g), ref = make("cpu", g);
  const auto x = random_vector(g.grid.count(), 10), y = random_vector(views.size() * g.image_size(), 11);
  std::vector<float> a(y.size()), a_ref(y.size()), b(x.size()), b_ref(x.size());
  op->forward(x, a, views);
  ref->forward(x, a_ref, views);
  op->back(y, b, views);
  ref->back(y, b_ref, views);
  EXPECT_LE(relative_l2(a, a_ref), a_tolerance());
  EXPECT_LE(relative_l2(b, b_ref), kExact);
}

TEST_P(GlProjector, TheStepOptionIsTheCpusStep) {
  const ConeGeometry g = contract_geometry();
  const ProjectorOptions coarse{.step_voxels = 1.7};
  auto op = make(GetParam(), g, coarse), ref = make("cpu", g, coarse), fine = make("cpu", g);
  const auto x = random_vector(g.grid.count(), 7);
  std::vector<float> a(g.views() * g.image_size()), a_ref(a.size()), a_fine(a.size());
  op->forward(x, a);
  ref->forward(x, a_ref);
  fine->forward(x, a_fine);
  EXPECT_LE(relative_l2(a, a_ref), a_tolerance());
  EXPECT_GT(relative_l2(a_fine, a_ref), 1e-3);  // the step changes the numbers: the option arrives
}

TEST_P(GlProjector, SirtAndCglsMatchTheCpusIterates) {
  const ConeGeometry g = contract_geometry();
  auto ref = make("cpu", g);
  const auto truth = random_vector(g.grid.count(), 8);
  std::vector<float> b(g.views() * g.image_size());
  ref->forward(truth, b);
  for (Algorithm algorithm : {Algorithm::sirt, Algorithm::cgls}) {
    const IterativeOptions o{.algorithm = algorithm, .iterations = 5};
    auto op = make(GetParam(), g);
    const VolumeF v = reconstruct_iterative(*op, g, b, o);
    const VolumeF v_ref = reconstruct_iterative(*ref, g, b, o);
    EXPECT_LE(relative_l2(v.data, v_ref.data), iterate_tolerance()) << to_string(algorithm);
    EXPECT_LT(relative_l2(v.data, truth), 0.9) << to_string(algorithm);  // it did iterate
  }
}

TEST_P(GlProjector, AdjointSumsBeyondOneSsboGoInSlabs) {
  // 2048×2048×9 voxels (151 MB) exceed what one SSBO binding holds on llvmpipe (128 MiB) and
  // are summed in z-slabs; a few rays keep it quick.
  CArmGeometry c;
  c.projections = 2;
  c.arc_deg = 90.0;
  c.sx = 6;
  c.sy = 5;
  c.pixel_mm = 40.0;  // the rays cover every slice
  const ConeGeometry g{Grid3::centred({2048, 2048, 9}, {0.05, 0.05, 12.0}), c.sx, c.sy, c.matrices()};
  const long long max_block = gl::shared_context().info().caps.max_ssbo_block_size;
  ASSERT_GT(max_block, 0);
  const bool several = static_cast<long long>(g.grid.count() * sizeof(float)) > max_block;
  auto op = make(GetParam(), g), ref = make("cpu", g);
  EXPECT_NE(op->describe().find(several ? "2 SSBO slab(s)" : "1 SSBO slab(s)"), std::string::npos) << op->describe();
  const auto y = random_vector(g.views() * g.image_size(), 9);
  std::vector<float> b(g.grid.count()), b_ref(b.size());
  op->back(y, b);
  ref->back(y, b_ref);
  EXPECT_GT(relative_l2(b_ref, std::vector<float>(b.size(), 0.0f)), 0.5);  // rays hit the volume
  // fp32 sample positions over 2048 voxels (spacing of floats near 2048: 2.4e-4 voxel) move the
  // trilinear weights by about 1e-4 against the cpu's doubles.
  EXPECT_LE(relative_l2(b, b_ref), 2e-4);
  // Both slabs received taps: the slices on either side of the boundary are non-zero.
  const std::size_t slice = std::size_t(2048) * 2048;
  double first = 0, last = 0;
  for (std::size_t i = 0; i < slice; ++i) {
    first += b[i];
    last += b[8 * slice + i];
  }
  EXPECT_GT(first, 0.0);
  EXPECT_GT(last, 0.0);
}

// The fdk problem run as the CLI runs it (the embedded fdk_tv.toml, 8 views at 32³) with an
// iterative algorithm on `backend`: the report.
nlohmann::json run_scene(const std::string& backend, const std::string& algorithm,
                         const std::filesystem::path& out_dir) {
  Scene s = Scene::load_string(embedded_scene("fdk_tv.toml"), "fdk_tv.toml");
  s.apply_override("fdk.algorithm=\"" + algorithm + "\"");
  s.apply_override("fdk.iterations=4");
  RunReport report;
  OutputDir out(out_dir, true);
  RunContext ctx{s, backend, out, report};
  ProblemRegistry::instance().find("fdk").run(ctx);
  out.commit();
  return report.json();
}

TEST_P(GlProjector, TheFdkProblemIteratesOnThisBackend) {
  tomo::test::TempDir t;
  for (const std::string algorithm : {"sirt", "os-sart"}) {
    const nlohmann::json gl = run_scene(GetParam(), algorithm, t.dir / (GetParam() + algorithm));
    const nlohmann::json cpu = run_scene("cpu", algorithm, t.dir / ("cpu" + algorithm));
    EXPECT_EQ(gl["backend"], GetParam());
    EXPECT_NE(gl.dump().find(GetParam() == "gl" ? "gl raster projector" : "gl-compute projector"), std::string::npos);
    const double r = gl["metrics"]["relative_residual"], r_cpu = cpu["metrics"]["relative_residual"];
    const double e = gl["metrics"]["phantom_nrmse_fov"], e_cpu = cpu["metrics"]["phantom_nrmse_fov"];
    EXPECT_NEAR(r / r_cpu, 1.0, iterate_tolerance()) << algorithm;
    EXPECT_NEAR(e / e_cpu, 1.0, iterate_tolerance()) << algorithm;
    EXPECT_LT(r, 0.5) << algorithm;  // it reconstructed
  }
}

TEST_P(GlProjector, RaysLongerThanSoftwareGlRunsAreRefused) {
  const ConeGeometry g = contract_geometry();
  // About 66,000 samples on the longest ray: beyond llvmpipe's loop limit.
  auto op = make(GetParam(), g, {.step_voxels = 0.0005});
  std::vector<float> x(g.grid.count(), 1.0f), y(g.views() * g.image_size());
  const long long limit = gl::shared_context().info().caps.max_loop_iterations;
  if (limit > 0) {
    try {
      op->forward(x, y);
      ADD_FAILURE() << "no refusal";
    } catch (const UnavailableError& e) {
      EXPECT_NE(std::string(e.what()).find("cutting loops short"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("fdk " + GetParam() + " projector"), std::string::npos) << e.what();
    }
  } else {
    EXPECT_NO_THROW(op->forward(x, y));
  }
}

TEST_P(GlProjector, DescribesItsBackendAndModel) {
  auto op = make(GetParam(), contract_geometry());
  const std::string d = op->describe();
  EXPECT_EQ(d.rfind(GetParam() == "gl" ? "gl raster projector" : "gl-compute projector", 0), 0u) << d;
  EXPECT_NE(d.find("trilinear"), std::string::npos) << d;
}

INSTANTIATE_TEST_SUITE_P(Backends, GlProjector, ::testing::Values("gl-compute", "gl"),
                         ::tomo::test::backend_param_name);

}  // namespace
}  // namespace tomo::fdk
