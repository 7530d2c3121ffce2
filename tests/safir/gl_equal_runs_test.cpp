// The gl-compute tiled pass in equal runs (renderer/safir/gl_equal_runs.hpp, tiled.comp.glsl)
// against the cpu's double reference: forced on here with a multiprocessor count (llvmpipe has
// no GL_NV_shader_thread_group), forward and back within 1e-5 relative L2 and ML-EM iterations
// within 1e-4, over the whole list and over an OSEM subset's window; the plan does run in equal
// runs (groups > 0).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/safir/kernel_math.hpp"
#include "compute/safir/labels.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/gl.hpp"
#include "renderer/safir/gl_equal_runs.hpp"
#include "compute/safir/projector.hpp"
#include "compute/safir/simulator.hpp"

namespace tomo::safir {
namespace {

struct RunsCase {
  Scanner scanner;
  ImageBox box;
  ListMode lm;
  std::vector<double> image, sensitivity;
};

// 12 rings, a 40 × 40 × 20 box, Derenzo events with randoms; a smooth positive image and sensitivity.
RunsCase make_setup(std::uint64_t events) {
  RunsCase s;
  s.scanner.rings = 12;
  s.box.n = {40, 40, 20};
  Phantom ph;
  ph.spheres = Phantom::derenzo(12.0);
  SimulationOptions o;
  o.events = events;
  o.seed = 5;
  o.randoms_fraction = 0.1;
  s.lm = simulate(s.scanner, ph, o);
  const Grid3 g = s.box.grid();
  s.image.resize(g.count());
  s.sensitivity.resize(g.count());
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) {
        s.image[g.index(i, j, k)] = 1.0 + 0.5 * std::sin(0.3 * i + 0.2 * j + 0.1 * k);
        s.sensitivity[g.index(i, j, k)] = 2.0 + std::cos(0.1 * i - 0.2 * k);
      }
  return s;
}

class ForcedRuns {
 public:
  explicit ForcedRuns(int sms) : saved_(gl_passes::equal_runs_defaults()) { gl_passes::equal_runs_defaults().sms = sms; }
  ~ForcedRuns() { gl_passes::equal_runs_defaults() = saved_; }

 private:
  gl_passes::EqualRuns saved_;
};

TEST(SafirGlEqualRuns, MatchTheCpuOverTheListAndASubset) {
  ASSERT_TRUE(BackendRegistry<ListModeOperator>::instance().available("gl-compute").ok);
  const RunsCase s = make_setup(20000);
  const ForcedRuns forced(3);  // 12 resident groups: the windows here are one or two waves
  ProjectorOptions tiled;
  tiled.pass = Pass::tiled;
  auto make = [&](const std::string& backend, const ProjectorOptions& o) {
    auto op = BackendRegistry<ListModeOperator>::instance().create(backend);
    op->configure(s.scanner, s.box, o);
    op->set_sensitivity(s.sensitivity);
    op->set_randoms_per_lor(1e-3);
    op->set_events(s.lm.events);
    op->set_image(s.image);
    return op;
  };
  auto gl = make("gl-compute", tiled);
  auto cpu = make("cpu", {});
  const std::size_t n = s.lm.events.size();
  for (const auto& [first, count] : {std::pair<std::size_t, std::size_t>{0, n}, {n / 8, n / 8}}) {
    gl->set_window(first, count);
    cpu->set_window(first, count);
    // The plan this window gets (the projector's tile cap): equal runs.
    gl::shared_context().make_current();
    GLint bytes = 0;
    glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &bytes);
    const auto c = cpu->label_counts();
    const std::size_t counts[4] = {0, c[1], c[2], c[3]};
    const TilePlan plan = plan_tiles(s.box.n.data(), counts, std::max<long long>(256, bytes / 4 - 64), 2048.0, 4096);
    const int groups = gl_passes::equal_run_groups(plan, gl_passes::equal_runs_defaults());
    ASSERT_GT(groups, 0);
    EXPECT_LT(groups, plan.blocks);  // fewer, equal groups than the chunks
    std::vector<double> v(count);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.25 + double(i % 7) * 0.5;
    gl->set_image(s.image);
    cpu->set_image(s.image);
    const double ey = relative_l2(gl->forward(), cpu->forward()), eb = relative_l2(gl->back(v), cpu->back(v));
    for (int t = 0; t < 3; ++t) gl->iterate(), cpu->iterate();
    const double ef = relative_l2(gl->image(), cpu->image());
    std::printf("gl-compute equal runs, window [%zu, +%zu): forward %.3g, back %.3g, 3 ML-EM iterations %.3g vs cpu\n", first,
                count, ey, eb, ef);
    EXPECT_LT(ey, 1e-5);
    EXPECT_LT(eb, 1e-5);
    EXPECT_LT(ef, 1e-4);
  }
}

// The group count: none without a multiprocessor count or for windows of many waves; a whole
// number of waves of resident groups otherwise, never runs under half the minimum chunk.
TEST(SafirGlEqualRuns, GroupsFillWholeWaves) {
  const int n[3] = {90, 90, 50};
  const std::size_t subset[4] = {2500, 41000, 41000, 40500}, whole[4] = {20000, 330000, 330000, 320000};
  const TilePlan p = plan_tiles(n, subset, 12224, 2048.0, 4096), q = plan_tiles(n, whole, 12224, 2048.0, 4096);
  gl_passes::EqualRuns e;
  EXPECT_EQ(gl_passes::equal_run_groups(p, e), 0);  // no multiprocessor count
  e.sms = 132;
  const int groups = gl_passes::equal_run_groups(p, e);
  EXPECT_GT(groups, 0);
  EXPECT_EQ(groups % (132 * e.groups_per_sm), 0);
  EXPECT_EQ(gl_passes::equal_run_groups(q, e), 0);  // the whole list: chunks, as before
  const std::size_t tiny[4] = {0, 100, 100, 0};
  const TilePlan t = plan_tiles(n, tiny, 12224, 2048.0, 4096);
  const int few = gl_passes::equal_run_groups(t, e);
  EXPECT_GE(few, 1);
  EXPECT_LT(few, 132 * e.groups_per_sm);
}

}  // namespace
}  // namespace tomo::safir
