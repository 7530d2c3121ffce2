// The triangular vortex lattice of compute/musr/bmw/vortex_lattice.hpp against the physics:
// the mean field, Brandt's second moment of the London lattice, ⟨ΔB²⟩ = 0.00371 Φ0²/λ⁴ for
// a ≪ λ, the modified-London cutoff lowering it, the histogram and P(t) against a direct
// average over the grid, the no-lattice limit and the input checks.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "compute/core/error.hpp"
#include "compute/musr/bmw/vortex_lattice.hpp"
#include "compute/musr/expression.hpp"

namespace tomo::musr::bmw {
namespace {

double mean(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()); }
double variance(const std::vector<double>& v) {
  const double m = mean(v);
  double s = 0.0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size());
}

TEST(MusrVortexLattice, LondonSecondMomentIsBrandts) {
  // a = 69 nm ≪ λ = 200 nm: σ_B = √0.00371 Φ0/λ² = 31.5 G.
  VortexLatticeParams p{VortexModel::london, 5000.0, 200.0, 0.0, 256};
  const auto b = triangular_vortex_field(p);
  EXPECT_NEAR(mean(b), 5000.0, 1e-9 * 5000.0);
  const double want = std::sqrt(0.00371) * kFluxQuantum / (200.0 * 200.0);
  EXPECT_NEAR(std::sqrt(variance(b)), want, 0.01 * want);
  // Maximum at the vortex cores (grid point 0), minimum at the centre of a vortex triangle.
  EXPECT_EQ(std::max_element(b.begin(), b.end()) - b.begin(), 0);
}

TEST(MusrVortexLattice, ModifiedLondonCutoffNarrowsTheDistribution) {
  VortexLatticeParams london{VortexModel::london, 5000.0, 200.0, 0.0, 256};
  VortexLatticeParams ml{VortexModel::modified_london, 5000.0, 200.0, 5.0, 256};
  const auto bl = triangular_vortex_field(london), bm = triangular_vortex_field(ml);
  EXPECT_NEAR(mean(bm), 5000.0, 1e-9 * 5000.0);
  EXPECT_LT(variance(bm), variance(bl));
  EXPECT_LT(*std::max_element(bm.begin(), bm.end()), *std::max_element(bl.begin(), bl.end()));
  // The minimum (far from the cores) moves by a tenth of σ only (λ²/(1 − b), b = 0.038).
  EXPECT_NEAR(*std::min_element(bm.begin(), bm.end()), *std::min_element(bl.begin(), bl.end()), 0.1 * std::sqrt(variance(bl)));
}

TEST(MusrVortexLattice, PolarizationMatchesTheGridAverage) {
  VortexLatticeParams p{VortexModel::modified_london, 112.8, 170.5, 4.0, 128};
  const auto b = triangular_vortex_field(p);
  const FieldDistribution d = field_distribution(b, 0.5);
  double total = 0.0;
  for (double x : d.p) total += x;
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_NEAR(d.mean(), mean(b), 0.5);
  EXPECT_NEAR(d.variance(), variance(b) + 0.25 / 12.0, 0.02 * variance(b));
  const std::vector<double> t = {0.0, 0.5, 1.7, 4.0};
  std::vector<double> pt(t.size());
  polarization(d, 10.0, t, pt);
  EXPECT_NEAR(pt[0], std::cos(10.0 * kPi / 180.0), 1e-12);
  for (std::size_t i = 0; i < t.size(); ++i) {
    double direct = 0.0;
    for (double x : b) direct += std::cos(2 * kPi * kGammaMuOver2Pi * x * t[i] + 10.0 * kPi / 180.0);
    direct /= static_cast<double>(b.size());
    // Binning moves each field by ≤ ΔB/2: a phase error ≤ π γ ΔB t (0.085 rad at 4 µs), mostly
    // cancelling over a bin.
    EXPECT_NEAR(pt[i], direct, 2e-3) << "t " << t[i];
  }
}

TEST(MusrVortexLattice, NoLatticeAboveBc2AndInputChecks) {
  // ξ = 60 nm: B_c2 = Φ0/(2πξ²) = 914 G < 1000 G.
  const auto b = triangular_vortex_field({VortexModel::modified_london, 1000.0, 200.0, 60.0, 16});
  for (double x : b) EXPECT_EQ(x, 1000.0);
  auto err = [](VortexLatticeParams p) -> std::string {
    try {
      triangular_vortex_field(p);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(err({VortexModel::london, -1.0, 200.0, 0.0, 16}), "vortex lattice: field -1.000000 G is not a positive number");
  EXPECT_EQ(err({VortexModel::london, 100.0, NAN, 0.0, 16}), "vortex lattice: lambda nan nm is not a positive number");
  EXPECT_EQ(err({VortexModel::london, 100.0, 200.0, 0.0, 15}), "vortex lattice: grid 15 is not an even number in [8, 2048]");
  EXPECT_THROW(field_distribution(std::vector<double>{1.0, 2.0}, 0.0), InputError);
  EXPECT_THROW(field_distribution(std::vector<double>{0.0, 1e9}, 1e-3), InputError);
}

}  // namespace
}  // namespace tomo::musr::bmw
