// The line records and tile walks of the tiled CUDA pass (kernel_math.hpp: line_record,
// walk_record, tile_extent) against walk_line, on the host: the tiles of a partition of the image
// together give exactly walk_line's voxels and weights (double), and within float rounding in float.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "compute/safir/kernel_math.hpp"
#include "compute/safir/scanner.hpp"

namespace tomo::safir {
namespace {

using Weights = std::map<int, double>;

Weights line_weights(const double a[3], const double b[3], int label, const BoxParams<double>& g) {
  Weights w;
  walk_line(a, b, label, g, [&](int j, double v) { w[j] += v; });
  return w;
}

// The record walk over every tile of extent `ext`, local indices turned back into image indices.
template <class T>
Weights tiled_weights(const LineRecord<T>& r, int label, const BoxParams<T>& g, const int ext[3]) {
  Weights w;
  const int image_stride[3] = {1, g.n[0], g.n[0] * g.n[1]};
  for (int z = 0; z < g.n[2]; z += ext[2])
    for (int y = 0; y < g.n[1]; y += ext[1])
      for (int x = 0; x < g.n[0]; x += ext[0]) {
        const int lo[3] = {x, y, z};
        int hi[3], stride[3];
        for (int i = 0; i < 3; ++i) hi[i] = std::min(lo[i] + ext[i], g.n[i]);
        stride[0] = 1;
        stride[1] = hi[0] - lo[0];
        stride[2] = stride[1] * (hi[1] - lo[1]);
        walk_record(r, g.md, tile_span(label, g.n, lo, hi, stride), [&](int local, T v) {
          const int i = local % stride[1], j = (local / stride[1]) % (hi[1] - lo[1]), k = local / stride[2];
          const int global = (lo[0] + i) * image_stride[0] + (lo[1] + j) * image_stride[1] + (lo[2] + k) * image_stride[2];
          EXPECT_EQ(w.count(global), 0u) << "a voxel in two tiles or twice in a walk";
          w[global] += double(v);
        });
      }
  return w;
}

struct Lines {
  std::vector<std::array<double, 3>> a, b;
  std::vector<int> label;
};

// Random crystal pairs of the seed's scanner, the labelled ones (all three labels occur).
Lines scanner_lines(const BoxParams<double>& g, int count) {
  Scanner sc;
  const auto pos = sc.positions();
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::size_t> pick(0, pos.size() - 1);
  Lines l;
  while (static_cast<int>(l.label.size()) < count) {
    const auto& a = pos[pick(rng)];
    const auto& b = pos[pick(rng)];
    const int label = label_line(a.data(), b.data(), g);
    if (label == kLabelSkip) continue;
    l.a.push_back(a);
    l.b.push_back(b);
    l.label.push_back(label);
  }
  return l;
}

TEST(SafirTiledWalk, TilesOfDoubleRecordsGiveWalkLineExactly) {
  const ImageBox box;  // the seed's 90 × 90 × 50 of 0.7 mm, m_d = 1
  const auto g = box.params<double>();
  const Lines l = scanner_lines(g, 600);
  int labels[4] = {0, 0, 0, 0};
  // Whole planes (the default tiles) and planes cut in u and w (images whose plane is beyond the cap).
  for (const long long cap : {28928LL, 4500LL * 6, 1000LL, 37LL}) {
    for (std::size_t i = 0; i < l.label.size(); ++i) {
      const int label = l.label[i];
      ++labels[label];
      int ext[3];
      tile_extent(g.n, label, cap, ext);
      ASSERT_LE(static_cast<long long>(ext[0]) * ext[1] * ext[2], cap);
      const Weights ref = line_weights(l.a[i].data(), l.b[i].data(), label, g);
      const Weights got = tiled_weights(line_record(l.a[i].data(), l.b[i].data(), label, g), label, g, ext);
      ASSERT_EQ(got.size(), ref.size()) << "line " << i << " label " << label << " cap " << cap;
      for (const auto& [j, v] : ref) {
        ASSERT_TRUE(got.count(j)) << "line " << i << " voxel " << j;
        EXPECT_NEAR(got.at(j), v, 1e-9 * (1 + v)) << "line " << i << " voxel " << j;
      }
    }
  }
  EXPECT_GT(labels[kLabelX], 0);
  EXPECT_GT(labels[kLabelY], 0);
  EXPECT_GT(labels[kLabelZ], 0);
}

TEST(SafirTiledWalk, FloatRecordsProjectLikeTheFloatWalk) {
  // What the GPU does: records computed in double, walked in float over the default tiles; beside
  // walk_line in float from float crystal positions (the fused pass), both against double.
  const ImageBox box;
  const auto g = box.params<double>();
  const auto gf = box.params<float>();
  const Lines l = scanner_lines(g, 400);
  auto f = [](int j) { return 1.0 + 0.5 * std::sin(0.001 * j); };  // a smooth image
  auto project = [&](const Weights& w) {
    double y = 0;
    for (const auto& [j, v] : w) y += v * f(j);
    return y;
  };
  double num_r = 0, num_w = 0, den = 0;
  for (std::size_t i = 0; i < l.label.size(); ++i) {
    const int label = l.label[i];
    int ext[3];
    tile_extent(g.n, label, 28928, ext);
    const auto rd = line_record(l.a[i].data(), l.b[i].data(), label, g);
    const LineRecord<float> rf{float(rd.cu), float(rd.su), float(rd.cw), float(rd.sw)};
    const float af[3] = {float(l.a[i][0]), float(l.a[i][1]), float(l.a[i][2])};
    const float bf[3] = {float(l.b[i][0]), float(l.b[i][1]), float(l.b[i][2])};
    Weights wf;
    walk_line(af, bf, label, gf, [&](int j, float v) { wf[j] += v; });
    const double yr = project(line_weights(l.a[i].data(), l.b[i].data(), label, g));
    const double yt = project(tiled_weights(rf, label, gf, ext)), yw = project(wf);
    num_r += (yt - yr) * (yt - yr);
    num_w += (yw - yr) * (yw - yr);
    den += yr * yr;
  }
  const double rel_r = std::sqrt(num_r / den), rel_w = std::sqrt(num_w / den);
  std::printf("forward vs double walk_line, relative L2: float records %.3g, float walk_line %.3g\n", rel_r, rel_w);
  EXPECT_LT(rel_r, 1e-6);
  EXPECT_LT(rel_r, 2 * rel_w + 1e-8);
}

TEST(SafirTiledWalk, TileExtentFitsTheCapAndCoversPlanes) {
  const int n[3] = {90, 90, 50};
  int e[3];
  tile_extent(n, kLabelX, 28928, e);
  EXPECT_EQ(e[0], 6);  // 6 planes of 90 × 50
  EXPECT_EQ(e[1], 90);
  EXPECT_EQ(e[2], 50);
  tile_extent(n, kLabelZ, 28928, e);
  EXPECT_EQ(e[2], 3);  // 3 planes of 90 × 90
  tile_extent(n, kLabelY, 4000, e);
  EXPECT_EQ(e[1], 1);  // a plane of 4500 does not fit: cut along w (z)
  EXPECT_EQ(e[0], 90);
  EXPECT_EQ(e[2], 44);
  tile_extent(n, kLabelX, 1000000, e);
  EXPECT_EQ(e[0], 90);  // never beyond the image
}

}  // namespace
}  // namespace tomo::safir

namespace tomo::safir {
namespace {

TEST(SafirTiledWalk, PlanCoversEveryEventOncePerTile) {
  const int n[3] = {90, 90, 50};
  const std::size_t counts[4] = {1000, 5000000, 4000000, 1300001};
  // H200 shares: 2 blocks of 28928 floats per SM, 132 SMs, 8 waves; and a tiny window.
  const TilePlan p = plan_tiles(n, counts, 28928, 8.0 * 132 * 2, 8192);
  EXPECT_EQ(p.smem_floats, 27000);  // 6 planes of 90 × 50
  int blocks = 0;
  unsigned long long at = counts[0];
  for (int l = 0; l < 3; ++l) {
    const LabelTiles& t = p.label[l];
    EXPECT_EQ(t.begin, at);
    EXPECT_EQ(t.end - t.begin, counts[l + 1]);
    at = t.end;
    const int tiles = t.tiles[0] * t.tiles[1] * t.tiles[2];
    const unsigned long long chunks = (t.end - t.begin + t.chunk - 1) / t.chunk;
    EXPECT_EQ(static_cast<unsigned long long>(t.blocks), chunks * tiles);
    EXPECT_GE(t.chunk, 8192u);
    for (int i = 0; i < 3; ++i) EXPECT_GE(t.tiles[i] * t.ext[i], n[i]);
    blocks += t.blocks;
  }
  EXPECT_EQ(p.blocks, blocks);
  EXPECT_GT(p.blocks, 132 * 2 * 4);  // several waves for load balance
  const std::size_t few[4] = {3, 10, 0, 5};
  const TilePlan q = plan_tiles(n, few, 28928, 8.0 * 132 * 2, 8192);
  EXPECT_EQ(q.label[1].blocks, 0);  // no events, no blocks
  EXPECT_EQ(q.label[0].blocks, q.label[0].tiles[0] * q.label[0].tiles[1] * q.label[0].tiles[2]);
}

}  // namespace
}  // namespace tomo::safir
