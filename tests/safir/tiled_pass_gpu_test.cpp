// The cuda tiled pass at the seed's sizes (91 × 180 crystals, 90 × 90 × 50 voxels: tiles of 6 and 3
// whole planes), against the cpu's double and the fused pass: forward, back, ML-EM iterations and
// the sensitivity's back-projection of ones (label gpu; skips without a CUDA device).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string_view>

#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/safir/projector.hpp"
#include "compute/safir/sensitivity.hpp"
#include "compute/safir/simulator.hpp"
#include "cuda/core/device.hpp"
#include "cuda/safir/device_operator.hpp"
#include "cuda/safir/tiled_pass.hpp"
#include "tests/safir/pair_list.hpp"

namespace tomo::safir {
namespace {

struct SeedCase {
  Scanner scanner;  // the seed's ring
  ImageBox box;     // the seed's image
  ListMode lm;
  std::vector<double> sensitivity;
};

const SeedCase& seed_case() {
  static const SeedCase c = [] {
    SeedCase s;
    Phantom ph;
    ph.spheres = Phantom::derenzo(22.0);
    SimulationOptions o;
    o.events = 60000;
    o.seed = 11;
    s.lm = simulate(s.scanner, ph, o);
    s.sensitivity.assign(s.box.count(), 0.0);
    const Grid3 g = s.box.grid();
    for (int k = 0; k < g.dims[2]; ++k)
      for (int j = 0; j < g.dims[1]; ++j)
        for (int i = 0; i < g.dims[0]; ++i) s.sensitivity[g.index(i, j, k)] = 1.5 + 0.5 * std::cos(0.05 * i + 0.1 * k);
    return s;
  }();
  return c;
}

std::unique_ptr<ListModeOperator> make(const std::string& backend, const ProjectorOptions& o) {
  const SeedCase& c = seed_case();
  auto op = BackendRegistry<ListModeOperator>::instance().create(backend);
  op->configure(c.scanner, c.box, o);
  op->set_sensitivity(c.sensitivity);
  op->set_randoms_per_lor(1e-4);
  op->set_events(c.lm.events);
  op->set_image(std::vector<double>(c.box.count(), 1.0));
  return op;
}

ProjectorOptions pass(const char* name, int per_sm = 2) {
  ProjectorOptions o;
  o.pass = std::string_view(name) == "fused" ? Pass::fused : Pass::tiled;
  o.tile_blocks_per_sm = per_sm;
  return o;
}

// The plan (host arithmetic, no device needed) on an H200's shares: a window of an eighth of a
// million events (an OSEM subset) fits one wave of resident blocks (chunks of the minimum made
// 265 blocks for 264 slots: a second wave for one block), with chunks of at least half the
// minimum; the whole list fits 7 waves (it took 1893 blocks: 8 waves, the last nearly idle).
TEST(SafirTilePlan, SmallWindowsFillWholeWaves) {
  const ImageBox box;  // the seed's 90 × 90 × 50 voxels
  const cuda_impl::TileDevice h200{.sms = 132, .smem_per_sm = 233472, .smem_per_block_optin = 232448,
                                   .smem_reserved_per_block = 1024};
  const cuda_impl::TileConfig config;
  const double slots = 132.0 * config.blocks_per_sm;
  const auto plan = [&](std::size_t events) {
    const std::array<std::size_t, 4> counts{events / 50, events / 3, events / 3, events - events / 50 - 2 * (events / 3)};
    return cuda_impl::plan_for_device(box.params<float>(), counts, h200, config);
  };
  const TilePlan subset = plan(125000);
  EXPECT_LE(subset.blocks, slots) << subset.blocks;
  EXPECT_GT(subset.blocks, 0.85 * slots);  // blocks come in steps of a label's tile count
  for (const LabelTiles& t : subset.label) EXPECT_GE(t.chunk, config.min_chunk / 2);
  EXPECT_EQ(plan(125000).blocks, subset.blocks);  // deterministic
  const TilePlan whole = plan(1000000);  // 6.8 waves at the minimum chunk: 7 waves
  EXPECT_LE(whole.blocks, 7 * slots);
  EXPECT_GT(whole.blocks, 6.5 * slots);
}

class SafirTiledPassGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(SafirTiledPassGpu, ForwardBackAndMlemMatchTheCpuAtTheSeedsSizes) {
  auto ref = make("cpu", {});
  const auto y_ref = ref->forward();
  std::vector<double> v(y_ref.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.25 + (i % 5) * 0.5;
  const auto b_ref = ref->back(v);
  for (int t = 0; t < 3; ++t) ref->iterate();
  const auto f_ref = ref->image();
  for (const auto& [name, o] : {std::pair{"tiled", pass("tiled")}, std::pair{"tiled, 1 block/SM", pass("tiled", 1)},
                                std::pair{"fused", pass("fused")}}) {
    auto op = make("cuda", o);
    EXPECT_EQ(op->label_counts(), ref->label_counts()) << name;
    const double ey = relative_l2(op->forward(), y_ref), eb = relative_l2(op->back(v), b_ref);
    for (int t = 0; t < 3; ++t) op->iterate();
    const double ef = relative_l2(op->image(), f_ref);
    std::printf("cuda %s, seed sizes: forward %.3g, back %.3g, 3 ML-EM iterations %.3g vs cpu\n", name, ey, eb, ef);
    EXPECT_LT(ey, 1e-5) << name;
    EXPECT_LT(eb, 1e-5) << name;
    EXPECT_LT(ef, 1e-4) << name;
  }
}

TEST_F(SafirTiledPassGpu, SensitivityOfAShortScannerMatchesTheCpu) {
  // Back-projections of ones over all crystal pairs (ordered, not random: neighbouring threads walk
  // neighbouring lines, the worst case for the tile's shared atomics).
  Scanner sc;
  sc.rings = 8;
  ImageBox box;
  box.n = {90, 90, 12};
  auto cpu = BackendRegistry<ListModeOperator>::instance().create("cpu");
  cpu->configure(sc, box, {});
  const auto s_ref = compute_sensitivity(*cpu, sc, box);
  for (const char* name : {"tiled", "fused"}) {
    auto op = BackendRegistry<ListModeOperator>::instance().create("cuda");
    op->configure(sc, box, pass(name));
    const double e = relative_l2(compute_sensitivity(*op, sc, box), s_ref);
    std::printf("cuda %s: sensitivity of an 8-ring scanner %.3g vs cpu\n", name, e);
    EXPECT_LT(e, 1e-5) << name;
  }
}

TEST_F(SafirTiledPassGpu, PairEventsMadeOnTheDeviceAreTheHostsList) {
  // The sensitivity's pair lists made by the cuda kernel against the interface's host list,
  // event for event, for first crystals at both ends of the id range; an id beyond the
  // scanner is refused before anything is made.
  const test::PairCase c = test::pair_case();
  const std::uint32_t n = c.scanner.crystal_count();
  const std::vector<Event> expected = test::pair_list(c.first, n);
  auto op = BackendRegistry<ListModeOperator>::instance().create("cuda");
  op->configure(c.scanner, c.box, {});
  op->set_pair_events(c.first);
  auto* dev = dynamic_cast<DeviceOperator*>(op.get());
  ASSERT_NE(dev, nullptr);
  const std::vector<Event> got = dev->events_to_host();
  ASSERT_EQ(got.size(), expected.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < got.size(); ++i) differ += got[i].a != expected[i].a || got[i].b != expected[i].b;
  EXPECT_EQ(differ, 0u);
  const std::vector<std::uint32_t> bad = {3, n};
  EXPECT_THROW(op->set_pair_events(bad), InputError);
}

}  // namespace
}  // namespace tomo::safir
