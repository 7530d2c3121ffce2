// The H_srtᵀ gather's enumeration (cuda/oat/srt_gather.hpp), emulated on the host in float with
// the very functions the CUDA kernel runs: for every tile and transducer it must find every patch
// that touches the tile exactly once. Against a float scatter of the same patches (the same
// weights, summed in double) the images agree to the order of the sums, and the patch-voxel
// contacts are counted the same; a patch missed or taken twice shows as a contact count off and
// an error of the order of a patch's weight.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

#include "compute/core/metrics.hpp"
#include "compute/oat/params.hpp"
#include "bench/cuda/oat/srt_ring_cuts.hpp"
#include "cuda/oat/srt_gather.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat::test {
namespace {

struct Emulated {
  std::vector<double> image;
  long long contacts = 0, candidates = 0, patches_in_box = 0;
};

struct Scene {
  GridParams<float> grid;
  std::vector<ShellFrame<float>> frames;
  int M;
  float c0, t_min, dt, h;
  std::vector<float> g;  // Q·M shell values
  float radius(int m) const { return c0 * (t_min + (static_cast<float>(m) - 1.0f) * dt); }
};

Scene make_setup(const OatGeometry& geo) {
  Scene s{grid_params<float>(geo), shell_frames<float>(geo), geo.time.samples + 2,
          static_cast<float>(geo.c0_mm_per_us), static_cast<float>(geo.time.t_min_us),
          static_cast<float>(geo.time.dt_us()), static_cast<float>(geo.voxel_mm()), {}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  s.g.resize(s.frames.size() * s.M);
  for (float& x : s.g) x = u(rng);
  return s;
}

// The scatter: every patch of every shell, its eight trilinear weights (as the forward).
Emulated scatter(const Scene& s) {
  Emulated e;
  e.image.assign(static_cast<std::size_t>(s.grid.nx) * s.grid.ny * s.grid.nz, 0.0);
  for (std::size_t q = 0; q < s.frames.size(); ++q)
    for (int m = 0; m < s.M; ++m) {
      const ShellFrame<float>& f = s.frames[q];
      const ShellCap<float> c = shell_cap(f, s.radius(m), s.h);
      const float value = s.g[q * s.M + m];
      for (int i = 0; i < c.n_theta; ++i) {
        const ShellRing<float> r = srt_ring(c, i);
        const float v = r.area * value;
        for (int j = 0; j < r.n_phi; ++j) {
          float x, y, z;
          shell_point(f, c, r, j, &x, &y, &z);
          trilinear_visit(s.grid, x, y, z, [&](int n, float w) {
            e.image[n] += static_cast<double>(w * v);
            ++e.contacts;
          });
        }
      }
    }
  return e;
}

// The gather, tile by tile, in the kernel's order of bounds: shells, rings, azimuth ranges; the
// tile's sums laid out as the kernel lays them, with row stride rx and py rows per plane
// (rx = tile[0], py = tile[1]: dense; one more each: the spread layout of kGatherLayout); the
// rings' azimuths cut by Cut (LineCut, the product's, or a bench cut).
template <class Cut>
Emulated gather(const Scene& s, const int tile[3], float centre[3], float rho, int rx, int py) {
  Emulated e;
  e.image.assign(static_cast<std::size_t>(s.grid.nx) * s.grid.ny * s.grid.nz, 0.0);
  float far = 0;
  for (const auto& f : s.frames) far = std::max(far, f.D + rho);
  const float margin = gather_margin(s.grid.ds, far);
  const int n[3] = {s.grid.nx, s.grid.ny, s.grid.nz};
  for (int tk = 0; tk < n[2]; tk += tile[2])
    for (int tj = 0; tj < n[1]; tj += tile[1])
      for (int ti = 0; ti < n[0]; ti += tile[0]) {
        const GatherTile<float> t = gather_tile(s.grid, ti, tj, tk, tile[0], tile[1], tile[2], margin);
        const float dx = t.c[0] - centre[0], dy = t.c[1] - centre[1], dz = t.c[2] - centre[2];
        const float reach = rho + t.r;
        if (dx * dx + dy * dy + dz * dz > reach * reach) continue;
        for (std::size_t q = 0; q < s.frames.size(); ++q) {
          const ShellFrame<float>& f = s.frames[q];
          const GatherView<float> v = gather_view(f, t);
          int m_lo, m_hi;
          gather_shells(v, s.c0, s.t_min, s.dt, s.M, &m_lo, &m_hi);
          for (int m = m_lo; m <= m_hi; ++m) {
            const float value = s.g[q * s.M + m];
            const GatherShell<float> sh = gather_shell(f, v, s.radius(m), s.h);
            for (int i = sh.i_lo; i <= sh.i_hi; ++i) {
              const ShellRing<float> r = srt_ring(sh.cap, i, sh.sin_half);
              const RingRange rr = Cut::ring(f, v, sh, r, i);
              const float vr = r.area * value;
              for (int k = 0; k < rr.count; ++k) {
                int j = rr.j_lo + k;
                if (j >= r.n_phi) j -= r.n_phi;
                float x, y, z;
                shell_point(f, sh.cap, r, j, &x, &y, &z);
                ++e.candidates;
                bool inside = false;
                tile_visit(s.grid, t, rx, py, x, y, z, [&](int l, float w) {
                  const int a = t.lo[0] + l % rx, b = t.lo[1] + (l / rx) % py, c = t.lo[2] + l / (rx * py);
                  e.image[a + static_cast<std::size_t>(n[0]) * (b + static_cast<std::size_t>(n[1]) * c)] +=
                      static_cast<double>(w * vr);
                  ++e.contacts;
                  inside = true;
                });
                e.patches_in_box += inside;
              }
            }
          }
        }
      }
  return e;
}

// The gather of every tile size against the scatter; the candidates each tile found (summed over
// the tile sizes) returned.
template <class Cut = LineCut>
long long expect_gather_equals_scatter(const OatGeometry& geo, std::initializer_list<std::array<int, 3>> tiles,
                                       bool spread = false) {
  long long candidates = 0;
  const Scene s = make_setup(geo);
  const Emulated ref = scatter(s);
  const Vec3d c = geo.grid_centre_mm();
  float centre[3] = {static_cast<float>(c[0]), static_cast<float>(c[1]), static_cast<float>(c[2])};
  for (const auto& tile : tiles) {
    const int rx = tile[0] + (spread ? 1 : 0), py = tile[1] + (spread ? 1 : 0);
    const Emulated got = gather<Cut>(s, tile.data(), centre, static_cast<float>(cap_radius_mm(geo)), rx, py);
    const double err = relative_l2(got.image, ref.image);
    std::printf("tile %dx%dx%d: %lld contacts (scatter %lld), %lld candidates, %lld touch the tile (%.2f), rel. L2 %.3g\n",
                tile[0], tile[1], tile[2], got.contacts, ref.contacts, got.candidates, got.patches_in_box,
                double(got.patches_in_box) / double(std::max(1LL, got.candidates)), err);
    EXPECT_EQ(got.contacts, ref.contacts) << "tile " << tile[0] << "x" << tile[1] << "x" << tile[2];
    EXPECT_LT(err, 1e-12);
    EXPECT_GT(ref.contacts, 0);
    candidates += got.candidates;
  }
  return candidates;
}

TEST(OatSrtGather, FindsEveryPatchOfTheContractScene) {
  expect_gather_equals_scatter(small_geometry(12, 1.0, 4, 8, 20.0, 5.0), {{8, 8, 8}, {4, 4, 4}, {16, 8, 4}});
}

// The product's layout: rows and planes one longer than the tile (a padded row's last slot and a
// padded plane's last row are never addressed, every voxel lands where the write-out reads it).
TEST(OatSrtGather, FindsEveryPatchInTheSpreadLayout) {
  expect_gather_equals_scatter(small_geometry(12, 1.0, 4, 8, 20.0, 5.0), {{8, 8, 8}, {16, 16, 16}, {16, 8, 4}}, true);
}

// fp32 at paper scale: 0.2 mm voxels 65 mm away, 20 MHz (shells 0.075 mm apart).
TEST(OatSrtGather, FindsEveryPatchAtPaperScale) {
  expect_gather_equals_scatter(small_geometry(20, 0.2, 3, 6, 65.0, 20.0), {{8, 8, 8}, {16, 16, 8}});
}

// A transducer on the line through a tile's centre and the support centre: the tile's azimuth is
// undefined there and every ring about that axis is taken whole.
TEST(OatSrtGather, FindsEveryPatchOnTheAxis) {
  OatGeometry g = small_geometry(8, 1.0, 2, 3, 20.0, 5.0);
  g.transducers.push_back({0.0, 0.0, 20.0});
  g.surface_mm2.push_back(g.surface_mm2.front());
  g.transducers.push_back({0.0, 20.0, 0.0});
  g.surface_mm2.push_back(g.surface_mm2.front());
  g.time = covering_time_axis(g, 5.0, 1.0);
  expect_gather_equals_scatter(g, {{8, 8, 8}, {3, 5, 7}});
}

// The rings cut by the ring itself against the box's slabs (CircleCut): every patch still
// found once, and fewer candidates than the line cut (whose long arcs near the axis stay whole).
TEST(OatSrtGather, CircleCutFindsEveryPatchWithFewerCandidates) {
  const OatGeometry g = small_geometry(12, 1.0, 4, 8, 20.0, 5.0);
  const long long line = expect_gather_equals_scatter(g, {{8, 8, 8}, {4, 4, 4}, {16, 8, 4}});
  const long long circle = expect_gather_equals_scatter<CircleCut>(g, {{8, 8, 8}, {4, 4, 4}, {16, 8, 4}});
  std::printf("candidates: line cut %lld, circle cut %lld\n", line, circle);
  EXPECT_LT(circle, line);
}

TEST(OatSrtGather, CircleCutFindsEveryPatchAtPaperScale) {
  const OatGeometry g = small_geometry(20, 0.2, 3, 6, 65.0, 20.0);
  const long long line = expect_gather_equals_scatter(g, {{8, 8, 8}, {16, 16, 16}}, true);
  const long long circle = expect_gather_equals_scatter<CircleCut>(g, {{8, 8, 8}, {16, 16, 16}}, true);
  std::printf("candidates: line cut %lld, circle cut %lld\n", line, circle);
  EXPECT_LT(circle, line);
}

TEST(OatSrtGather, CircleCutFindsEveryPatchOnTheAxis) {
  OatGeometry g = small_geometry(8, 1.0, 2, 3, 20.0, 5.0);
  g.transducers.push_back({0.0, 0.0, 20.0});
  g.surface_mm2.push_back(g.surface_mm2.front());
  g.transducers.push_back({0.0, 20.0, 0.0});
  g.surface_mm2.push_back(g.surface_mm2.front());
  g.time = covering_time_axis(g, 5.0, 1.0);
  expect_gather_equals_scatter<CircleCut>(g, {{8, 8, 8}, {3, 5, 7}});
}

// The line cut cut again by the sagitta of the arc it left (RefinedCut): every patch still
// found once, with fewer candidates than the line cut where arcs are long.
TEST(OatSrtGather, RefinedCutFindsEveryPatchWithFewerCandidates) {
  const OatGeometry g = small_geometry(12, 1.0, 4, 8, 20.0, 5.0);
  const long long line = expect_gather_equals_scatter(g, {{8, 8, 8}, {4, 4, 4}, {16, 8, 4}});
  const long long refined = expect_gather_equals_scatter<RefinedCut>(g, {{8, 8, 8}, {4, 4, 4}, {16, 8, 4}});
  std::printf("candidates: line cut %lld, refined cut %lld\n", line, refined);
  EXPECT_LT(refined, line);
}

TEST(OatSrtGather, RefinedCutFindsEveryPatchAtPaperScale) {
  const OatGeometry g = small_geometry(20, 0.2, 3, 6, 65.0, 20.0);
  const long long line = expect_gather_equals_scatter(g, {{8, 8, 8}, {16, 16, 16}}, true);
  const long long refined = expect_gather_equals_scatter<RefinedCut>(g, {{8, 8, 8}, {16, 16, 16}}, true);
  std::printf("candidates: line cut %lld, refined cut %lld\n", line, refined);
  EXPECT_LT(refined, line);
}

TEST(OatSrtGather, RefinedCutFindsEveryPatchOnTheAxis) {
  OatGeometry g = small_geometry(8, 1.0, 2, 3, 20.0, 5.0);
  g.transducers.push_back({0.0, 0.0, 20.0});
  g.surface_mm2.push_back(g.surface_mm2.front());
  g.transducers.push_back({0.0, 20.0, 0.0});
  g.surface_mm2.push_back(g.surface_mm2.front());
  g.time = covering_time_axis(g, 5.0, 1.0);
  expect_gather_equals_scatter<RefinedCut>(g, {{8, 8, 8}, {3, 5, 7}});
}

}  // namespace
}  // namespace tomo::oat::test
