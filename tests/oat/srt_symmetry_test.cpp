// The quarter-turn symmetry plan of H_srt (compute/oat/srt_symmetry.hpp): which geometries pass
// the check, and that an orbit's passes reproduce every member's own patches and samples (double,
// kernel_math's arithmetic on each member's own frame against the pass's frame turned).
#include "compute/oat/srt_symmetry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "compute/core/metrics.hpp"
#include "compute/oat/params.hpp"
#include "compute/oat/stages.hpp"
#include "cuda/oat/srt_gather.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat {
namespace {

// (x, y) → (−y, x) about (cx, cy), k times.
std::array<double, 3> turn(std::array<double, 3> p, double cx, double cy, int k) {
  for (int i = 0; i < k; ++i) p = {cx - (p[1] - cy), cy + (p[0] - cx), p[2]};
  return p;
}

// Every patch position of shell R's ring i under frame f (kernel_math, double).
std::vector<std::array<double, 3>> ring_points(const ShellFrame<double>& f, double R, double h, int i) {
  const ShellCap<double> c = shell_cap(f, R, h);
  std::vector<std::array<double, 3>> out;
  if (i >= c.n_theta) return out;
  const ShellRing<double> r = shell_ring(c, i);
  for (int j = 0; j < r.n_phi; ++j) {
    std::array<double, 3> p;
    shell_point(f, c, r, j, &p[0], &p[1], &p[2]);
    out.push_back(p);
  }
  return out;
}

// The pass of member k of orbit o that lays out its rings of patch-count parity `odd`.
const SymmetryPass<double>* pass_of(const SrtSymmetry& s, int o, int k, bool odd) {
  const SymmetryPass<double>* found = nullptr;
  for (int p = s.orbit_first[o]; p < s.orbit_first[o + 1]; ++p) {
    const unsigned mask = odd ? s.passes[p].mask_odd : s.passes[p].mask_even;
    if (mask & (1u << k)) {
      EXPECT_EQ(found, nullptr) << "orbit " << o << " member " << k << " in two passes";
      found = &s.passes[p];
    }
  }
  return found;
}

// Each member of each orbit is served once per parity, and for every shell sample and ring its own
// patches are the pass's turned by R^k (as a set, to 1e-9 mm).
// Orbits with more than two passes and every `orbit_stride`-th one are checked.
void expect_patches_match(const OatGeometry& g, const SrtSymmetry& s, int shell_stride, int orbit_stride = 1) {
  ASSERT_TRUE(s.ok) << s.why;
  const auto frames = shell_frames<double>(g);
  const Vec3d c = g.grid_centre_mm();
  const double h = g.voxel_mm();
  std::vector<int> seen(g.transducers.size(), 0);
  for (int o = 0; o < s.orbits; ++o)
    for (int k = 0; k < kSymmetryFold; ++k) {
      const int q = s.passes[s.orbit_first[o]].q[k];
      ++seen[q];
      if (o % orbit_stride != 0 && s.orbit_first[o + 1] - s.orbit_first[o] <= 2) continue;
      for (int m = 1; m < g.time.samples + 1; m += shell_stride) {
        const double R = g.c0_mm_per_us * g.time.t_us(m - 1);
        const ShellCap<double> own = shell_cap(frames[q], R, h);
        for (int i = 0; i < own.n_theta; ++i) {
          auto mine = ring_points(frames[q], R, h, i);
          const bool odd = mine.size() % 2 == 1;
          const SymmetryPass<double>* p = pass_of(s, o, k, odd);
          ASSERT_NE(p, nullptr) << "orbit " << o << " member " << k;
          auto theirs = ring_points(p->frame, R, h, i);
          ASSERT_EQ(theirs.size(), mine.size());
          for (auto& x : theirs) x = turn(x, c[0], c[1], k);
          for (const auto& x : mine) {
            double best = 1e300;
            for (const auto& y : theirs)
              best = std::min(best, std::hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]));
            ASSERT_LT(best, 1e-9) << "orbit " << o << " member " << k << " shell " << m << " ring " << i;
          }
        }
      }
    }
  for (std::size_t q = 0; q < seen.size(); ++q) EXPECT_EQ(seen[q], 1) << "transducer " << q;
}

TEST(SrtSymmetry, SmallRingsAndViewsPassAndReproduceEveryMembersPatches) {
  const OatGeometry g = test::small_geometry(12, 1.0, 4, 8);
  const SrtSymmetry s = plan_srt_symmetry(g);
  ASSERT_TRUE(s.ok) << s.why;
  EXPECT_EQ(s.orbits, 8);
  EXPECT_EQ(s.n, 12);
  ASSERT_EQ(s.orbit_first.size(), 9u);
  // Frames from the least aligned axis: most orbits need a second pass for the negated frame.
  EXPECT_GT(static_cast<int>(s.passes.size()), s.orbits);
  expect_patches_match(g, s, 1);
}

// The bench's transducer layout (64 × 128) has ties |e_x| = |e_y| at 45°, where a member's frame
// is turned about e by a quarter, not negated: those orbits need more than two passes.
TEST(SrtSymmetry, TiesAtFortyFiveDegreesGetPassesOfTheirOwn) {
  OatGeometry g = test::small_geometry(16, 1.0, 64, 128, 40.0);
  const SrtSymmetry s = plan_srt_symmetry(g);
  ASSERT_TRUE(s.ok) << s.why;
  EXPECT_EQ(s.orbits, 64 * 128 / 4);
  int more = 0;
  for (int o = 0; o < s.orbits; ++o) more += s.orbit_first[o + 1] - s.orbit_first[o] > 2;
  EXPECT_GT(more, 0);
  expect_patches_match(g, s, 7, 41);
}

// A member's sample by the symmetric form (its pass's patches and weights, the voxels turned)
// equals kernel_math's srt_sample on its own frame.
TEST(SrtSymmetry, TurnedVoxelsGiveEachMembersSample) {
  const OatGeometry g = test::small_geometry(12, 1.0, 4, 8);
  const SrtSymmetry s = plan_srt_symmetry(g);
  ASSERT_TRUE(s.ok) << s.why;
  const auto frames = shell_frames<double>(g);
  const GridParams<double> gp = grid_params<double>(g);
  const std::vector<double> alpha = test::random_positive(g.grid.count(), 3);
  const int n = s.n;
  double worst = 0;
  int compared = 0;
  for (int o = 0; o < s.orbits; ++o)
    for (int k = 0; k < kSymmetryFold; ++k) {
      const int q = s.passes[s.orbit_first[o]].q[k];
      for (int m = 1; m < g.time.samples + 1; m += 3) {
        const double R = g.c0_mm_per_us * g.time.t_us(m - 1);
        const double own = srt_sample(frames[q], gp, alpha.data(), R, g.voxel_mm());
        double sym = 0;
        for (int p = s.orbit_first[o]; p < s.orbit_first[o + 1]; ++p) {
          const SymmetryPass<double>& ps = s.passes[p];
          const ShellCap<double> cap = shell_cap(ps.frame, R, g.voxel_mm());
          for (int i = 0; i < cap.n_theta; ++i) {
            const ShellRing<double> r = shell_ring(cap, i);
            if (!(((r.n_phi % 2) ? ps.mask_odd : ps.mask_even) & (1u << k))) continue;
            double ring = 0;
            for (int j = 0; j < r.n_phi; ++j) {
              double x, y, z;
              shell_point(ps.frame, cap, r, j, &x, &y, &z);
              trilinear_visit(gp, x, y, z, [&](int v, double w) {
                int a = v % n, b = (v / n) % n;
                const int c = v / (n * n);
                for (int t = 0; t < k; ++t) {
                  const int na = n - 1 - b;
                  b = a;
                  a = na;
                }
                ring += w * alpha[a + n * (b + n * c)];
              });
            }
            sym += r.area * ring;
          }
        }
        if (own != 0) worst = std::max(worst, std::abs(sym - own) / std::abs(own));
        compared += own != 0;
      }
    }
  EXPECT_GT(compared, 50);
  EXPECT_LT(worst, 1e-10);
}

TEST(SrtSymmetry, GeometriesWithoutTheSymmetryFailWithTheReason) {
  {
    OatGeometry g = test::small_geometry(12, 1.0, 4, 8);
    g.grid.dims = {12, 10, 12};
    const SrtSymmetry s = plan_srt_symmetry(g);
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.why.find("not square"), std::string::npos) << s.why;
  }
  {
    OatGeometry g = test::small_geometry(11, 1.0, 4, 8);
    const SrtSymmetry s = plan_srt_symmetry(g);
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.why.find("odd"), std::string::npos) << s.why;
  }
  {
    const OatGeometry g = test::small_geometry(12, 1.0, 4, 6);  // views at 60°: no quarter turn
    const SrtSymmetry s = plan_srt_symmetry(g);
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.why.find("turned a quarter"), std::string::npos) << s.why;
  }
  {
    OatGeometry g = test::small_geometry(12, 1.0, 4, 8);
    g.grid.origin_mm[0] += 0.25;  // the grid's axis off the array's
    const SrtSymmetry s = plan_srt_symmetry(g);
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.why.find("turned a quarter"), std::string::npos) << s.why;
  }
  {
    OatGeometry g = test::small_geometry(12, 1.0, 4, 8);
    g.grid.voxel_mm[1] = 1.1;
    const SrtSymmetry s = plan_srt_symmetry(g);
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.why.find("x and y sides differ"), std::string::npos) << s.why;
  }
}

}  // namespace
}  // namespace tomo::oat

namespace tomo::oat {
namespace {

// The bench's symmetric gather's loops (bench/cuda/oat/srt_symmetric_gather.cuh) in double. A block
// owns a tile T of the first x–y quadrant and its turns R^c·T (copy c of T holds the voxels R^c·W,
// W in T). Orbit member k = R^k·d0 meets tile R^c·T where d0 meets R^(c−k)·T, so for each of the
// four views R^−j·T the orbit's passes (d0's patches) are enumerated once, and a patch at voxel V'
// adds member k's sample to copy (k − j) mod 4 at W = R^j·V'. Against the cpu's H_srtᵀ on each
// member's own frame.
TEST(SrtSymmetry, QuadrantGatherEmulationIsTheCpuTranspose) {
  const OatGeometry g = test::small_geometry(12, 1.0, 4, 8);
  const SrtSymmetry s = plan_srt_symmetry(g);
  ASSERT_TRUE(s.ok) << s.why;
  const InterpolationStages stages(g, ModelOptions{});
  const int M = g.time.samples + 2;
  const std::vector<double> samples = test::random_positive(static_cast<std::size_t>(g.transducer_count()) * M, 9);
  std::vector<double> ref(g.grid.count());
  stages.srt_adjoint(samples, ref);
  const GridParams<double> gp = grid_params<double>(g);
  const int n = s.n, half = n / 2, nz = g.grid.dims[2];
  const int T[3] = {4, 4, 4};
  const double c0 = g.c0_mm_per_us, t_min = g.time.t_min_us, dt = g.time.dt_us(), h = g.voxel_mm();
  const double margin = gather_margin(h, 200.0);
  auto turn_voxel = [n](int k, int& a, int& b) {
    for (int u = 0; u < ((k % 4) + 4) % 4; ++u) {
      const int na = n - 1 - b;
      b = a;
      a = na;
    }
  };
  std::vector<double> got(g.grid.count(), 0.0);
  const int vox = T[0] * T[1] * T[2];
  for (int tk = 0; tk < (nz + T[2] - 1) / T[2]; ++tk)
    for (int tj = 0; tj < (half + T[1] - 1) / T[1]; ++tj)
      for (int ti = 0; ti < (half + T[0] - 1) / T[0]; ++ti) {
        const int x0 = ti * T[0], x1 = std::min(x0 + T[0], half), y0 = tj * T[1], y1 = std::min(y0 + T[1], half);
        const int z0 = tk * T[2];
        std::vector<double> acc(4 * vox, 0.0);
        for (int j = 0; j < kSymmetryFold; ++j) {
          // The view R^−j·T as a box of voxels.
          int lo[2], hi[2];
          switch (j) {
            case 0: lo[0] = x0, hi[0] = x1, lo[1] = y0, hi[1] = y1; break;
            case 1: lo[0] = y0, hi[0] = y1, lo[1] = n - x1, hi[1] = n - x0; break;
            case 2: lo[0] = n - x1, hi[0] = n - x0, lo[1] = n - y1, hi[1] = n - y0; break;
            default: lo[0] = n - y1, hi[0] = n - y0, lo[1] = x0, hi[1] = x1; break;
          }
          const GatherTile<double> t =
              gather_tile(gp, lo[0], lo[1], z0, hi[0] - lo[0], hi[1] - lo[1], T[2], margin);
          for (const SymmetryPass<double>& ps : s.passes) {
            const GatherView<double> v = gather_view(ps.frame, t);
            int m_lo, m_hi;
            gather_shells(v, c0, t_min, dt, M, &m_lo, &m_hi);
            for (int m = m_lo; m <= m_hi; ++m) {
              const GatherShell<double> sh = gather_shell(ps.frame, v, c0 * (t_min + (m - 1) * dt), h);
              for (int i = sh.i_lo; i <= sh.i_hi; ++i) {
                const ShellRing<double> r = srt_ring(sh.cap, i, sh.sin_half);
                const unsigned mask = (r.n_phi % 2) ? ps.mask_odd : ps.mask_even;
                if (!mask) continue;
                const RingRange rr = gather_ring(ps.frame, v, sh, r, i);
                for (int x = 0; x < rr.count; ++x) {
                  const int jj = (rr.j_lo + x) % r.n_phi;
                  double px, py, pz;
                  shell_point(ps.frame, sh.cap, r, jj, &px, &py, &pz);
                  tile_visit(gp, t, 32, 32, px, py, pz, [&](int idx, double wt) {
                    int a = t.lo[0] + (idx & 31), b = t.lo[1] + ((idx >> 5) & 31);
                    const int z = t.lo[2] + (idx >> 10);
                    turn_voxel(j, a, b);  // W = R^j·V' in T
                    const int local = (a - x0) + T[0] * ((b - y0) + T[1] * (z - z0));
                    for (int k = 0; k < kSymmetryFold; ++k)
                      if (mask & (1u << k))
                        acc[((k - j + 4) % 4) * vox + local] +=
                            wt * r.area * samples[static_cast<std::size_t>(ps.q[k]) * M + m];
                  });
                }
              }
            }
          }
        }
        for (int c = 0; c < kSymmetryFold; ++c)
          for (int z = z0; z < std::min(z0 + T[2], nz); ++z)
            for (int y = y0; y < y1; ++y)
              for (int x = x0; x < x1; ++x) {
                int a = x, b = y;
                turn_voxel(c, a, b);
                got[a + n * (b + n * static_cast<std::size_t>(z))] =
                    acc[c * vox + (x - x0) + T[0] * ((y - y0) + T[1] * (z - z0))];
              }
      }
  EXPECT_LT(relative_l2(got, ref), 1e-10);
}

}  // namespace
}  // namespace tomo::oat
