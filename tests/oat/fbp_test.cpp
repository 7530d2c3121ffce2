// The cpu FBP (fused discrete formula): a centred uniform sphere comes back as A at its centre
// within 1 %; a blurred off-centre sphere correlates with its phantom; an EIR removed by the
// Hann-windowed deconvolution gives back the centre value within 2 %.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/deconvolution.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/phantom.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat::test {

std::vector<double> fbp(const OatGeometry& g, const std::vector<double>& p) {
  auto op = BackendRegistry<Fbp>::instance().create("cpu");
  op->configure(g, FbpOptions{});
  std::vector<double> img(g.grid.count());
  op->reconstruct(p, img);
  return img;
}

TEST(OatFbp, CentredUniformSphereReturnsItsValueAtTheCentre) {
  OatGeometry g = small_geometry(11, 1.0, 16, 32, 40.0, 20.0);
  OatPhantom ph;
  ph.spheres = {{{0, 0, 0}, 5.0, 1.7, 0.0}};
  const auto u = simulate_pressure(g, ph, Noise{});
  const auto img = fbp(g, u);
  const double centre = img[g.grid.index(5, 5, 5)];
  EXPECT_NEAR(centre / 1.7, 1.0, 0.01) << "centre " << centre;
  std::printf("centred sphere A = 1.7, a = 5 mm, 16x32 transducers at 20 MHz: FBP centre %.5f (%.3g %%)\n", centre,
              100 * (centre / 1.7 - 1));
}

TEST(OatFbp, BlurredSpheresCorrelateWithThePhantom) {
  OatGeometry g = small_geometry(24, 0.5, 16, 32, 30.0, 20.0);
  OatPhantom ph;
  ph.spheres = {{{1.5, -1.0, 0.5}, 2.5, 1.0, 0.5}, {{-2.5, 2.0, -1.0}, 1.5, 2.0, 0.4}};
  const auto u = simulate_pressure(g, ph, Noise{});
  const auto img = fbp(g, u);
  const auto ref = ph.rasterize(g.grid);
  EXPECT_GT(correlation(img, ref), 0.9);
}

TEST(OatFbp, DeconvolvedGaussianEirGivesBackTheCentreValue) {
  OatGeometry g = small_geometry(11, 1.0, 16, 32, 40.0, 20.0);
  g.eir.kind = EirKind::gaussian;
  g.eir.sigma_us = 0.1;
  g.eir.delay_us = 0.5;
  g.eir.taps = gaussian_eir_taps(g.eir, g.time.dt_us());
  g.time = covering_time_axis(g, 20.0, 1.0);
  OatPhantom ph;
  ph.spheres = {{{0, 0, 0}, 5.0, 1.0, 0.6}};
  const auto u = simulate_pressure(g, ph, Noise{});
  const auto p = deconvolve_eir(g, u, 0.0);
  const auto img = fbp(g, p);
  const double want = blurred_sphere_value(ph.spheres[0], 0.0);
  const double err = std::abs(img[g.grid.index(5, 5, 5)] - want);
  EXPECT_LT(err, 0.02 * want);
  // Without the deconvolution the delay shifts every shell and the error is larger.
  const auto raw = fbp(g, u);
  EXPECT_GT(std::abs(raw[g.grid.index(5, 5, 5)] - want), 3 * err);
  std::printf("centre: deconvolved %.4f, raw %.4f, phantom %.4f\n", img[g.grid.index(5, 5, 5)],
              raw[g.grid.index(5, 5, 5)], want);
}

}  // namespace tomo::oat::test
