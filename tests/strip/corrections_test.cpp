// strip's attenuation and normalisation terms (docs/pet.md), cpu and gl-compute: a uniform
// attenuating disc whose pairs the simulator attenuates through the μ-map reconstructs as the
// unattenuated disc with the attenuated acceptance as ρ''s sensitivity, and with a dip at its
// centre without it; an efficiency pattern along the strips with which the simulator detects its
// pairs is removed by the efficiency-weighted acceptance and seen without it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/io/npy.hpp"
#include "compute/strip/attenuation.hpp"
#include "compute/strip/normalisation.hpp"
#include "compute/strip/projector.hpp"
#include "compute/strip/simulator.hpp"
#include "compute/strip/subsets.hpp"
#include "tests/support/gl_test.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::strip {
namespace {

constexpr double kDisc = 90.0;

struct Case {
  StripGeometry g = StripGeometry::covering(130.0, 300.0, 10.0);
  Resolution res{10.0, 40.0};
  StripPhantom phantom;
  pet::AttenuationMap mu{VolumeF(Grid3{}, 0.0f), "none"};
  std::vector<Event> clear, attenuated;
  std::vector<std::uint8_t> centre, edge;
  Case() {
    phantom.rows = {{0.0, 0.0, kDisc, kDisc, 0.0, 1.0}};
    // μ = 0.1 cm⁻¹ in the disc, on a 2 mm grid in the frame of grid3 (x = z, y = y).
    VolumeF m(Grid3::centred({160, 140, 1}, {2.0, 2.0, 2.0}), 0.0f);
    for (int j = 0; j < 140; ++j)
      for (int i = 0; i < 160; ++i) {
        const auto p = m.grid.centre(i, j, 0);
        if (std::hypot(p[0], p[1]) < kDisc) m.data[m.grid.index(i, j, 0)] = 0.1f;
      }
    mu = pet::AttenuationMap(m, "disc");
    clear = simulate_phantom(g, res, phantom, 40000, 31);
    attenuated = simulate_phantom(g, res, phantom, 40000, 31, nullptr, &mu);
    centre.assign(g.pixel_count(), 0);
    edge.assign(g.pixel_count(), 0);
    for (int j = 0; j < g.n_y; ++j)
      for (int k = 0; k < g.n_z; ++k) {
        const double r = std::hypot(g.y_centre(j), g.z_centre(k));
        centre[g.index(j, k)] = r < 30.0;
        edge[g.index(j, k)] = r > kDisc - 35.0 && r < kDisc - 12.0 && std::abs(g.y_centre(j)) < 50.0;
      }
  }
};

std::vector<double> recon(const std::string& backend, const Case& c, const std::vector<Event>& ev,
                          std::vector<double> acceptance, int subsets = 1, int iterations = 20) {
  auto op = BackendRegistry<ListModeProjector>::instance().create(backend);
  op->configure(c.g, c.res, {});
  op->set_events(ev);
  EventSubsets data(*op, ev, subsets, c.g.pixel_count(), std::move(acceptance));
  data.set_image(std::vector<double>(c.g.pixel_count(), 1.0));
  pet::ReconOptions o;
  o.algorithm = subsets > 1 ? pet::Algorithm::osem : pet::Algorithm::mlem;
  o.iterations = iterations;
  o.subsets = subsets;
  pet::reconstruct(data, o, nullptr);
  return data.image();  // ρ'; the ratio of two regions of ρ = ρ'/s also needs s
}

double flatness(const Case& c, const std::vector<double>& rho_prime) {
  const std::vector<double> s = sensitivity_image(c.g);
  double a = 0, b = 0;
  int na = 0, nb = 0;
  for (std::size_t v = 0; v < s.size(); ++v) {
    if (!(s[v] > 0)) continue;
    if (c.centre[v]) a += rho_prime[v] / s[v], ++na;
    if (c.edge[v]) b += rho_prime[v] / s[v], ++nb;
  }
  return (a / na) / (b / nb);
}

class StripCorrections : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "cpu") (void)test::gl_context();
  }
};

TEST_P(StripCorrections, AttenuatedAcceptanceFlattensTheDisc) {
  static const Case c;
  const std::vector<double> acc = attenuated_acceptance(c.g, c.mu);
  const double f_clear = flatness(c, recon(GetParam(), c, c.clear, {}));
  const double f_ac = flatness(c, recon(GetParam(), c, c.attenuated, acc));
  const double f_nac = flatness(c, recon(GetParam(), c, c.attenuated, {}));
  const double f_osem = flatness(c, recon(GetParam(), c, c.attenuated, acc, 5, 4));
  std::printf("strip %s centre/edge: no attenuation %.3f, attenuated with AC %.3f (OSEM 5 x 4: %.3f), without %.3f\n",
              GetParam().c_str(), f_clear, f_ac, f_osem, f_nac);
  EXPECT_LT(std::abs(f_ac - f_clear), 0.05);
  EXPECT_LT(std::abs(f_osem - f_clear), 0.08);
  EXPECT_LT(f_nac, f_clear - 0.2);
}

// The upper strip detects 40 % on its z < 0 half, the lower one 100 % everywhere.
StripEfficiency half_dim(double L) {
  StripEfficiency e;
  e.L = L;
  e.upper = {0.4, 0.4, 0.4, 1.0, 1.0, 1.0};
  e.lower.assign(6, 1.0);
  return e;
}

// ρ = ρ'/s on the disc's z < 0 half over its z > 0 half (a margin from the centre and the rim).
double halves(const Case& c, const std::vector<double>& rho_prime) {
  const std::vector<double> s = sensitivity_image(c.g);
  double a = 0, b = 0;
  int na = 0, nb = 0;
  for (int j = 0; j < c.g.n_y; ++j)
    for (int k = 0; k < c.g.n_z; ++k) {
      const std::size_t v = c.g.index(j, k);
      const double y = c.g.y_centre(j), z = c.g.z_centre(k);
      if (!(s[v] > 0) || std::hypot(y, z) > kDisc - 15.0 || std::abs(z) < 15.0 || std::abs(y) > 60.0) continue;
      (z < 0 ? a : b) += rho_prime[v] / s[v];
      ++(z < 0 ? na : nb);
    }
  return (a / na) / (b / nb);
}

TEST_P(StripCorrections, EfficiencyWeightedAcceptanceRemovesAnEfficiencyPattern) {
  static const Case c;
  const StripEfficiency e = half_dim(c.g.L);
  static const std::vector<Event> dimmed = simulate_phantom(c.g, c.res, c.phantom, 40000, 31, nullptr, nullptr, &e);
  const std::vector<double> acc = weighted_acceptance(c.g, [&](double zu, double zd) { return e.pair(zu, zd); });
  const double h_clear = halves(c, recon(GetParam(), c, c.clear, {}));
  const double h_nc = halves(c, recon(GetParam(), c, dimmed, acc));
  const double h_none = halves(c, recon(GetParam(), c, dimmed, {}));
  const double h_osem = halves(c, recon(GetParam(), c, dimmed, acc, 5, 4));
  std::printf("strip %s z<0 / z>0: no pattern %.3f, pattern with the term %.3f (OSEM 5 x 4: %.3f), without %.3f\n",
              GetParam().c_str(), h_clear, h_nc, h_osem, h_none);
  EXPECT_LT(std::abs(h_nc - h_clear), 0.05);
  EXPECT_LT(std::abs(h_osem - h_clear), 0.06);
  EXPECT_LT(h_none, h_clear - 0.15);
}

INSTANTIATE_TEST_SUITE_P(Backends, StripCorrections, ::testing::Values("cpu", "gl-compute"),
                         [](const auto& info) { return info.param == "cpu" ? std::string("cpu") : "gl_compute"; });

TEST(StripAttenuation, AcceptanceIsTheMeanSurvivalOverTheAcceptedAngles) {
  const StripGeometry g = StripGeometry::covering(100.0, 200.0, 20.0);
  // A uniform slab |y| < 50 mm of 0.25 cm⁻¹ (exact in float) across the whole strip length: a line of angle θ
  // crosses it over 100 mm / cos θ.
  VolumeF m(Grid3::centred({200, 100, 1}, {2.0, 1.0, 2.0}), 0.25f);
  const pet::AttenuationMap mu(m, "slab");
  EXPECT_NEAR(survival(mu, g.R, 0.0, 0.0), std::exp(-2.5), 1e-12);
  const std::vector<double> c = attenuated_acceptance(g, mu, 4096);
  const int j = g.n_y / 2, k = g.n_z / 2;  // centre pixel (y, z) = (±10, ±10)
  const double y = g.y_centre(j), z = g.z_centre(k), R = g.R, L = g.L;
  const double hi = std::atan(std::min((0.5 * L - z) / (R - y), (0.5 * L + z) / (R + y)));
  const double lo = std::atan(std::max(-(0.5 * L + z) / (R - y), (-0.5 * L + z) / (R + y)));
  double ref = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) ref += std::exp(-2.5 / std::cos(lo + (i + 0.5) * (hi - lo) / n)) / n;
  EXPECT_NEAR(c[g.index(j, k)], ref, 1e-4);
}

TEST(StripNormalisation, EfficienciesFromNpy) {
  test::TempDir dir;
  const std::vector<double> v{0.5, 1.0, 0.25, 0.75};
  const std::array<std::size_t, 2> shape{2, 2};
  write_npy(dir.dir / "eff.npy", std::span<const double>(v), shape);
  const StripEfficiency e = StripEfficiency::from_npy(dir.dir / "eff.npy", 300.0, "strip.normalisation");
  EXPECT_EQ(e.upper, (std::vector<double>{0.5, 1.0}));
  EXPECT_EQ(e.lower, (std::vector<double>{0.25, 0.75}));
  EXPECT_DOUBLE_EQ(e.pair(-10.0, 10.0), 0.5 * 0.75);  // z_u in the upper strip's first half, z_d in the lower's second
  EXPECT_DOUBLE_EQ(e.pair(150.0, -150.0), 1.0 * 0.25);  // the ends belong to the end segments
  auto message = [&](std::vector<double> w, std::size_t n) {
    const std::array<std::size_t, 1> sh{n};
    write_npy(dir.dir / "bad.npy", std::span<const double>(w), sh);
    try {
      (void)StripEfficiency::from_npy(dir.dir / "bad.npy", 300.0, "strip.normalisation");
    } catch (const InputError& err) {
      return std::string(err.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({1.0, 1.0, 1.0}, 3).find("3 values; expected 2N"), std::string::npos);
  EXPECT_NE(message({1.0, 1.5}, 2).find("value 1 is 1.5; an efficiency is at most 1"), std::string::npos);
  EXPECT_NE(message({1.0, -0.5}, 2).find("value 1 is -0.5; it must be >= 0"), std::string::npos);
}

}  // namespace
}  // namespace tomo::strip
