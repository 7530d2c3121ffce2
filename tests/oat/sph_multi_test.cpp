// H_sph split over several ranks (compute/oat/sph_team.cpp, the cpu form of the several-GPU
// split): 2 and 3 host ranks give the single-rank ũ and α up to the order of double sums, and
// --gpus text the cpu team does not accept is an InputError.
#include <gtest/gtest.h>

#include <cstdio>

#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "compute/oat/sph_run.hpp"
#include "tests/oat/sph_fixtures.hpp"

namespace tomo::oat::test {

TEST(OatSphMulti, SharesCoverEveryVoxelAndTransducerOnce) {
  for (int R : {1, 2, 3, 7}) {
    std::int64_t v = 0;
    int q = 0;
    for (int r = 0; r < R; ++r) {
      const SphShare s = sph_share(1000, 13, r, R);
      EXPECT_EQ(s.voxel_begin, v);
      EXPECT_EQ(s.transducer_begin, q);
      v = s.voxel_end;
      q = s.transducer_end;
    }
    EXPECT_EQ(v, 1000);
    EXPECT_EQ(q, 13);
  }
}

TEST(OatSphMulti, HostRanksEqualOneRank) {
  const OatGeometry g = small_geometry(8, 1.0, 3, 5, 20.0, 5.0);
  const auto opts = sph_contract_options(g);
  const SphOptions& o = opts[1];  // rectangular faces
  const auto x = random_positive(g.grid.count(), 31);
  const auto yr = random_positive(2 * o.setup.data_size(g), 32);
  std::vector<std::complex<double>> y(o.setup.data_size(g));
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = {yr[2 * i] - 1.0, yr[2 * i + 1] - 1.0};
  auto one = make_sph_model("cpu", "", g, o);
  std::vector<std::complex<double>> hx1(y.size());
  std::vector<double> hty1(x.size());
  one->forward(x, hx1);
  one->adjoint(y, hty1);
  for (const char* ranks : {"2", "3"}) {
    auto team = make_sph_model("cpu", ranks, g, o);
    std::vector<std::complex<double>> hx(y.size());
    std::vector<double> hty(x.size());
    team->forward(x, hx);
    team->adjoint(y, hty);
    const double ef = rel_l2(hx, hx1), ea = relative_l2(hty, hty1);
    std::printf("%s host ranks vs 1: forward %.3g, adjoint %.3g (%s)\n", ranks, ef, ea, team->describe().c_str());
    EXPECT_LE(ef, 1e-13);
    EXPECT_LE(ea, 1e-13);
  }
}

TEST(OatSphMulti, BadRankTextIsAnInputError) {
  const OatGeometry g = small_geometry(4, 1.0, 2, 2, 20.0, 5.0);
  SphOptions o;
  o.setup = SphSetup::resolve(g, SphSetup{}, 0);
  EXPECT_THROW(make_sph_model("cpu", "two", g, o), InputError);
}

}  // namespace tomo::oat::test
