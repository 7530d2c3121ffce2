// The cuda tiled pass at the seed's sizes (91 × 180 crystals, 90 × 90 × 50 voxels: tiles of 6 and 3
// whole planes), against the cpu's double and the fused pass: forward, back, ML-EM iterations and
// the sensitivity's back-projection of ones (label gpu; skips without a CUDA device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/safir/projector.hpp"
#include "compute/safir/sensitivity.hpp"
#include "compute/safir/simulator.hpp"
#include "cuda/core/device.hpp"
#include "cuda/safir/tiled_pass.hpp"

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

// The balanced plans (host arithmetic) of an OSEM subset on an H200's shares, with central tiles
// walking up to 4× the slices of edge tiles: every tile's events are in exactly one block's
// segment, the blocks fit one wave, and the most work a block gets is within 12 % of the least
// possible (the total over the slots) with equal chunks per tile, no more with the remainders
// packed, where the uniform chunks give the central tiles' blocks far more.
TEST(SafirTilePlan, BalancedBlocksCoverEachTileAndEvenTheWork) {
  const ImageBox box;
  const cuda_impl::TileDevice h200{.sms = 132, .smem_per_sm = 233472, .smem_per_block_optin = 232448,
                                   .smem_reserved_per_block = 1024};
  const std::size_t events = 125000;
  const std::array<std::size_t, 4> counts{events / 50, events / 3, events / 3, events - events / 50 - 2 * (events / 3)};
  cuda_impl::TileConfig config;
  const TilePlan uniform = cuda_impl::plan_for_device(box.params<float>(), counts, h200, config);
  ASSERT_TRUE(cuda_impl::wants_balance(uniform, h200, config));
  const int tiles = cuda_impl::tile_count(uniform);
  ASSERT_EQ(tiles, 15 + 15 + 17);  // 6, 6 and 3 planes of 90, 90 and 50
  std::vector<unsigned long long> slices;
  std::vector<const LabelTiles*> label_of;
  for (const LabelTiles& t : uniform.label) {
    const int n = t.tiles[0] * t.tiles[1] * t.tiles[2];
    for (int i = 0; i < n; ++i) {
      const double centre = 1.0 - std::abs(2.0 * (i + 0.5) / n - 1.0);  // 0 at the edges, 1 in the middle
      slices.push_back(static_cast<unsigned long long>(double(t.end - t.begin) * (1.0 + 3.0 * centre)));
      label_of.push_back(&t);
    }
  }
  const double slots = 132.0 * config.blocks_per_sm;
  auto per_event = [&](int i) { return double(slices[i]) / double(label_of[i]->end - label_of[i]->begin) + config.visit_cost; };
  double total = 0, most_uniform = 0;
  for (int i = 0; i < tiles; ++i) {
    const double n = double(label_of[i]->end - label_of[i]->begin);
    total += per_event(i) * n;
    most_uniform = std::max(most_uniform, per_event(i) * std::min(double(label_of[i]->chunk), n));
  }
  const double least = total / slots;
  double most_equal = 0;
  for (const double tile_cost : {0.0, 0.2}) {
    config.tile_cost = tile_cost;
    std::vector<cuda_impl::BlockWork> work;
    const TilePlan p = cuda_impl::balanced_plan(uniform, slices, h200, config, work);
    EXPECT_EQ(p.blocks, static_cast<int>(work.size()));
    EXPECT_LE(p.blocks, slots);
    std::vector<std::vector<std::pair<unsigned, unsigned>>> runs(tiles);
    double most = 0;  // work + tile_cost × the mean block's work per segment
    for (const auto& w : work) {
      double load = 0;
      for (int s = 0; s < 2; ++s) {
        if (w.tile[s] < 0) continue;
        ASSERT_LT(w.tile[s], tiles);
        EXPECT_LT(w.e0[s], w.e1[s]);
        runs[w.tile[s]].push_back({w.e0[s], w.e1[s]});
        load += per_event(w.tile[s]) * double(w.e1[s] - w.e0[s]) + tile_cost * least;
      }
      EXPECT_GE(w.tile[0], 0);
      most = std::max(most, load);
    }
    for (int i = 0; i < tiles; ++i) {  // the runs of a tile tile its label's events
      std::sort(runs[i].begin(), runs[i].end());
      unsigned at = static_cast<unsigned>(label_of[i]->begin);
      for (const auto& [e0, e1] : runs[i]) {
        EXPECT_EQ(e0, at) << "tile " << i;
        at = e1;
      }
      EXPECT_EQ(at, label_of[i]->end) << "tile " << i;
    }
    std::printf("balanced plan, tile cost %.1f: %d blocks, largest block %.0f, uniform chunks' %.0f, least possible %.0f\n",
                tile_cost, p.blocks, most, most_uniform, least);
    if (tile_cost == 0) {
      most_equal = most;
      EXPECT_LT(most, 1.12 * least);
    } else {
      EXPECT_LE(most, most_equal + tile_cost * least);  // the same work measure plus the tile's cost
    }
  }
  EXPECT_GT(most_uniform, 1.3 * least);
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

}  // namespace
}  // namespace tomo::safir
