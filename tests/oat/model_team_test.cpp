// H_int over transducer ranges on several ranks (compute/oat/model_team.cpp, the cpu form of the
// several-GPU split): the shares keep whole rings (and with them the quarter-turn symmetry), and
// 2 and 3 host ranks give the single cpu model's u and α up to the order of double sums.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>

#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "compute/oat/model_team.hpp"
#include "compute/oat/srt_symmetry.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat::test {
namespace {

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  return std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
}

TEST(OatModelTeam, RingsViewsSplitKeepsWholeRings) {
  const OatGeometry g = small_geometry(8, 1.0, 7, 8);  // 7 rings of 8 views
  ASSERT_TRUE(plan_srt_symmetry(g).ok);
  for (const int R : {1, 2, 3, 7}) {
    int ring = 0;
    for (int r = 0; r < R; ++r) {
      const TransducerShare s = transducer_share(g, r, R);
      EXPECT_EQ(s.ring_begin, ring);
      EXPECT_GE(s.ring_end - s.ring_begin, 7 / R);
      EXPECT_LE(s.ring_end - s.ring_begin, 7 / R + 1);
      EXPECT_EQ(s.begin, s.ring_begin * 8);
      EXPECT_EQ(s.end, s.ring_end * 8);
      ring = s.ring_end;
      const OatGeometry sub = share_geometry(g, s);
      EXPECT_EQ(sub.rings, s.ring_end - s.ring_begin);
      EXPECT_EQ(sub.views, 8);
      ASSERT_EQ(sub.transducer_count(), s.count());
      EXPECT_EQ(sub.transducers.front(), g.transducers[s.begin]);
      EXPECT_EQ(sub.surface_mm2.back(), g.surface_mm2[s.end - 1]);
      const SrtSymmetry sym = plan_srt_symmetry(sub);  // each rank's forward can use the symmetry
      EXPECT_TRUE(sym.ok) << sym.why;
      EXPECT_EQ(sym.orbits, s.count() / 4);
    }
    EXPECT_EQ(ring, 7);
  }
  // 3 rings of 8 over 2 ranks: rings 0 and 1–2, never a ring cut in two.
  const OatGeometry g3 = small_geometry(8, 1.0, 3, 8);
  EXPECT_EQ(transducer_share(g3, 0, 2).end, 8);
  EXPECT_EQ(transducer_share(g3, 1, 2).begin, 8);
  EXPECT_EQ(transducer_share(g3, 1, 2).end, 24);
  EXPECT_THROW(transducer_share(g3, 0, 4), InputError);  // more ranks than rings
}

TEST(OatModelTeam, PositionsSplitIntoEqualRanges) {
  OatGeometry g = small_geometry(8, 1.0, 2, 5);
  std::vector<Vec3d> p = g.transducers;
  set_positions(g, p);
  ASSERT_EQ(g.rings, 0);
  int q = 0;
  for (int r = 0; r < 3; ++r) {
    const TransducerShare s = transducer_share(g, r, 3);
    EXPECT_EQ(s.begin, q);
    EXPECT_GE(s.count(), 3);
    EXPECT_LE(s.count(), 4);
    q = s.end;
  }
  EXPECT_EQ(q, 10);
  EXPECT_THROW(transducer_share(g, 0, 11), InputError);
}

void expect_ranks_equal_one(const OatGeometry& g, const ModelOptions& o) {
  const auto x = random_positive(g.grid.count(), 51);
  const auto y = random_positive(g.data_size(), 52);
  auto one = make_model("cpu", "", g, o);
  std::vector<double> hx1(y.size()), hty1(x.size());
  one->forward(x, hx1);
  one->adjoint(y, hty1);
  for (const char* ranks : {"2", "3"}) {
    auto team = make_model("cpu", ranks, g, o);
    std::vector<double> hx(y.size()), hty(x.size());
    team->forward(x, hx);
    team->adjoint(y, hty);
    const double ef = relative_l2(hx, hx1), ea = relative_l2(hty, hty1);
    const double lhs = dot(hx, y), rhs = dot(x, hty);
    const double identity = std::abs(lhs - rhs) / std::abs(lhs);
    std::printf("%s: forward %.3g, adjoint %.3g vs one rank; <Hx,y> vs <x,H^T y> %.3g\n", team->describe().c_str(), ef,
                ea, identity);
    EXPECT_GT(std::abs(lhs), 0.0);
    EXPECT_LE(ef, 1e-12);
    EXPECT_LE(ea, 1e-12);
    EXPECT_LE(identity, 1e-12);
    const auto devices = model_devices(*team);
    EXPECT_EQ(devices.size(), std::size_t(std::atoi(ranks)) + 1);  // the team and each rank
  }
}

TEST(OatModelTeam, HostRanksEqualOneRank) {
  ModelOptions o;
  o.threads = 2;
  expect_ranks_equal_one(small_geometry(10, 1.0, 3, 8, 20.0, 5.0, EirKind::gaussian), o);
}

TEST(OatModelTeam, HostRanksEqualOneRankForPositionsFromAFile) {
  OatGeometry g = small_geometry(10, 1.0, 3, 5, 20.0, 5.0);
  std::vector<Vec3d> p = g.transducers;
  set_positions(g, p);
  ModelOptions o;
  o.threads = 2;
  expect_ranks_equal_one(g, o);
}

TEST(OatModelTeam, BadRankTextIsAnInputError) {
  EXPECT_THROW(make_model("cpu", "two", small_geometry(4, 1.0, 2, 4), ModelOptions{}), InputError);
}

// The run checks "more ranks than rings" before any output with the backend's own rank count:
// host threads for cpu ("all" is one), none for a backend without ranks.
TEST(OatModelTeam, RankCountIsTheBackendsOwn) {
  EXPECT_EQ(model_rank_count("cpu", "3"), 3);
  EXPECT_EQ(model_rank_count("cpu", "0,2"), 2);
  EXPECT_EQ(model_rank_count("cpu", "all"), 1);
  EXPECT_THROW(model_rank_count("cpu", "two"), InputError);
  EXPECT_THROW(model_rank_count("no-such-backend", "2"), UnavailableError);
}

}  // namespace
}  // namespace tomo::oat::test
