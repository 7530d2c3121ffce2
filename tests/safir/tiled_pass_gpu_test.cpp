// The cuda tiled pass at the seed's sizes (91 × 180 crystals, 90 × 90 × 50 voxels: tiles of 6 and 3
// whole planes), against the cpu's double and the fused pass: forward, back, ML-EM iterations and
// the sensitivity's back-projection of ones (label gpu; skips without a CUDA device).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <set>
#include <string_view>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/safir/projector.hpp"
#include "compute/safir/sensitivity.hpp"
#include "compute/safir/simulator.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/safir/sort_buffers.hpp"
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

// Subsets in more, smaller chunks, the central tiles' blocks first: every (label, tile, chunk)
// of the plan is one block, the first blocks are the tile nearest the centre, and the blocks fill
// the waves asked for.
TEST(SafirTilePlan, CentralTilesFirstCoverEveryBlockOnce) {
  const ImageBox box;
  const cuda_impl::TileDevice h200{.sms = 132, .smem_per_sm = 233472, .smem_per_block_optin = 232448,
                                   .smem_reserved_per_block = 1024};
  cuda_impl::TileConfig config;
  config.few_waves = 2;
  config.heaviest_first = true;
  const double slots = 132.0 * config.blocks_per_sm;
  const std::size_t events = 125000;
  const std::array<std::size_t, 4> counts{events / 50, events / 3, events / 3, events - events / 50 - 2 * (events / 3)};
  const TilePlan p = cuda_impl::plan_for_device(box.params<float>(), counts, h200, config);
  EXPECT_LE(p.blocks, 2 * slots);
  EXPECT_GT(p.blocks, 1.7 * slots);
  ASSERT_GT(p.groups, 0);
  std::set<std::array<int, 3>> seen;
  for (int b = 0; b < p.blocks; ++b) {
    const BlockWork w = block_work(p, b);
    const LabelTiles& t = p.label[w.label];
    ASSERT_LT(w.tile, t.tiles[0] * t.tiles[1] * t.tiles[2]);
    ASSERT_LT(w.chunk, t.blocks / (t.tiles[0] * t.tiles[1] * t.tiles[2]));
    EXPECT_TRUE(seen.insert({w.label, w.tile, w.chunk}).second) << "block " << b;
  }
  EXPECT_EQ(int(seen.size()), p.blocks);
  // The first block's tile holds the image's centre along its label's main axis; the last one's
  // is at an end.
  const int n[3] = {box.n[0], box.n[1], box.n[2]};
  const auto axis_span = [&](const BlockWork& w) {
    const LabelTiles& t = p.label[w.label];
    const int m = w.label;  // labels 1, 2, 3 walk along x, y, z: label index 0, 1, 2
    const int tid[3] = {w.tile % t.tiles[0], (w.tile / t.tiles[0]) % t.tiles[1], w.tile / (t.tiles[0] * t.tiles[1])};
    return std::array<int, 3>{tid[m] * t.ext[m], std::min(n[m], (tid[m] + 1) * t.ext[m]), n[m]};
  };
  const auto first = axis_span(block_work(p, 0)), last = axis_span(block_work(p, p.blocks - 1));
  EXPECT_LE(first[0], first[2] / 2 + 1);
  EXPECT_GE(first[1], first[2] / 2 - 1);
  EXPECT_TRUE(last[0] == 0 || last[1] == last[2]);
  // Without the switch the order is label by label, tile fastest.
  config.heaviest_first = false;
  const TilePlan q = cuda_impl::plan_for_device(box.params<float>(), counts, h200, config);
  EXPECT_EQ(q.groups, 0);
  EXPECT_EQ(q.blocks, p.blocks);
  const BlockWork w1 = block_work(q, 1);
  EXPECT_EQ(w1.label, 0);
  EXPECT_EQ(w1.tile, 1);
  EXPECT_EQ(w1.chunk, 0);
}

class SafirTiledPassGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  }
};

// A subset's window in two waves with the central tiles first walks the same (event, tile) pairs
// as the one-wave plan in another order: forward and back agree to float rounding.
TEST_F(SafirTiledPassGpu, CentralTilesFirstGiveTheOneWavePlansProjections) {
  using namespace cuda_impl;
  const SeedCase& c = seed_case();
  const BoxParams<float> g = c.box.params<float>();
  const std::size_t n = c.lm.events.size();
  cuda::DeviceBuffer<uint2> events(n);
  events.upload(reinterpret_cast<const uint2*>(c.lm.events.data()), n);
  auto crystals = crystal_buffer(c.scanner);
  auto crystals_d = crystal_buffer_double(c.scanner);
  SortBuffers sort;
  sort.resize(n);
  const std::array<std::size_t, 4> counts = sort.sort(events.data(), n, crystals.data(), g, nullptr);
  cuda::DeviceBuffer<float4> records(n);
  launch_records(sort.sorted.data(), counts[0], n, crystals_d.data(), c.box.params<double>(), records.data(), nullptr);
  std::vector<float> image(c.box.count());
  for (std::size_t j = 0; j < image.size(); ++j) image[j] = 1.0f + 0.5f * std::sin(0.01f * float(j));
  const cuda::DeviceBuffer<float> f{std::span<const float>(image)};
  const TileDevice dev = tile_device();
  const auto project = [&](const TileConfig& config, int* blocks, int* groups) {
    TiledArgs a;
    a.plan = plan_for_device(g, counts, dev, config);
    *blocks = a.plan.blocks;
    *groups = a.plan.groups;
    a.records = records.data();
    a.box = g;
    a.f = f.data();
    cuda::DeviceBuffer<float> ybar(n), acc(c.box.count());
    ybar.fill_zero();
    acc.fill_zero();
    a.ybar = ybar.data();
    a.acc = acc.data();
    launch_forward_tiled(a, nullptr);
    a.mode = BackValues::ratio;
    launch_back_tiled(a, nullptr);
    return std::pair{ybar.to_host(), acc.to_host()};
  };
  TileConfig few;
  few.min_chunk = 1u << 20;  // 60 000 events: a window of less than one wave, as a subset
  TileConfig central = few;
  central.few_waves = 2;
  central.heaviest_first = true;
  int blocks_one = 0, groups_one = 0, blocks_two = 0, groups_two = 0;
  const auto [y1, b1] = project(few, &blocks_one, &groups_one);
  const auto [y2, b2] = project(central, &blocks_two, &groups_two);
  EXPECT_EQ(groups_one, 0);
  EXPECT_GT(groups_two, 0);
  EXPECT_GT(blocks_two, blocks_one);
  const double ey = relative_l2(y2, y1), eb = relative_l2(b2, b1);
  std::printf("two waves, central tiles first (%d blocks) against one wave (%d): forward %.2g, back %.2g\n",
              blocks_two, blocks_one, ey, eb);
  EXPECT_LT(ey, 1e-6);
  EXPECT_LT(eb, 1e-6);
  double sum = 0;
  for (float v : y1) sum += v;
  EXPECT_GT(sum, 0.0);
}

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
