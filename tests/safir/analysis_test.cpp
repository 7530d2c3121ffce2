// Eqs. (13)–(14) on a constructed image against hand-computed values; the spot finder; the
// inner/shell definition of open point 5.
#include <gtest/gtest.h>

#include <cmath>

#include "compute/core/error.hpp"
#include "compute/safir/analysis.hpp"

namespace tomo::safir {
namespace {

TEST(SafirAnalysis, ExcessOfAConstructedImageMatchesHandValues) {
  // 1 mm voxels, r_in = 1 mm: the centre and its 6 face neighbours (7 voxels) at 2.0; every
  // other voxel 1.0. r_out = 2 mm: i²+j²+k² ≤ 4 → 1 + 6 + 12 + 8 + 6 = 33 voxels, shell 26.
  const std::array<int, 3> n{11, 11, 11};
  const Grid3 g = Grid3::centred(n, {1.0, 1.0, 1.0});
  std::vector<double> img(g.count(), 1.0);
  const int c = 5;
  img[g.index(c, c, c)] = 2.0;
  for (int d = -1; d <= 1; d += 2) {
    img[g.index(c + d, c, c)] = 2.0;
    img[g.index(c, c + d, c)] = 2.0;
    img[g.index(c, c, c + d)] = 2.0;
  }
  const SphereSums s = sphere_sums_cpu(img, n, 1.0, 1.0, 2.0);
  const std::size_t v = g.index(c, c, c);
  EXPECT_EQ(s.n_inner[v], 7.0);
  EXPECT_EQ(s.n_shell[v], 26.0);
  EXPECT_EQ(s.inner[v], 14.0);
  EXPECT_EQ(s.shell[v], 26.0);
  // κ = 10 counts per unit: S = 140, B = 10 · 26 · 7/26 = 70, E = 1, ΔE = 2 √(1/140 + 1/70).
  const Excess e = excess_from_sums(s.inner[v], s.shell[v], s.n_inner[v], s.n_shell[v], 10.0);
  EXPECT_DOUBLE_EQ(e.S, 140.0);
  EXPECT_DOUBLE_EQ(e.B, 70.0);
  EXPECT_DOUBLE_EQ(e.E, 1.0);
  EXPECT_NEAR(e.dE, 0.292770021884560, 1e-12);
  EXPECT_NEAR(e.significance(), 3.415650255319866, 1e-9);
  // The same at the position of the centre (mm), and the spot finder's one peak there.
  const Excess at = excess_at(img, g, g.centre(c, c, c), 1.0, 2.0, 10.0);
  EXPECT_DOUBLE_EQ(at.E, 1.0);
  const ExcessMaps m = excess_maps(s, 10.0);
  const auto spots = find_spots(m, s, g, 10.0, 3.0);
  ASSERT_EQ(spots.size(), 1u);
  EXPECT_EQ(spots[0].voxel, (std::array<int, 3>{c, c, c}));
  // A flat image has no excess anywhere away from the borders.
  const SphereSums flat = sphere_sums_cpu(std::vector<double>(g.count(), 3.0), n, 1.0, 1.0, 2.0);
  const Excess ef = excess_from_sums(flat.inner[v], flat.shell[v], flat.n_inner[v], flat.n_shell[v], 1.0);
  EXPECT_DOUBLE_EQ(ef.E, 0.0);
  EXPECT_NEAR(ef.dE, std::sqrt(2.0 / 21.0), 1e-12);
}

TEST(SafirAnalysis, BordersCountOnlyVoxelsInsideTheImage) {
  const std::array<int, 3> n{5, 5, 5};
  const SphereSums s = sphere_sums_cpu(std::vector<double>(125, 1.0), n, 1.0, 1.0, 2.0);
  EXPECT_EQ(s.n_inner[0], 4.0);  // corner: itself and 3 neighbours
  EXPECT_EQ(s.inner[0], 4.0);
  EXPECT_EQ(s.n_shell[0], 7.0);  // (1,1,0) ×3, (1,1,1), (2,0,0) ×3
  EXPECT_THROW(sphere_offsets(1.0, 2.0, 1.0), InputError);
}

}  // namespace
}  // namespace tomo::safir
