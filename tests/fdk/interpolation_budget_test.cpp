// Error budget of the texture unit's bilinear filter (weights with 8 fractional bits, CUDA
// programming guide "Linear filtering"), emulated on the CPU: it justifies the tolerance the
// cuda "hardware" path is held to (rel. L2 ≤ 5e-3, PSNR ≥ 60 dB) in crosscheck and the GPU test.
#include <gtest/gtest.h>

#include <cmath>

#include "compute/fdk/cpu_kernel.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/simulate.hpp"

using namespace tomo;
using namespace tomo::fdk;

namespace {
// RabbitCT bilinear with the fractional weights truncated to 1/256 (the worse of round/truncate).
double bilinear_8bit(const float* I, int sx, int sy, double u, double v) {
  if (!(u > -1.0 && u < sx && v > -1.0 && v < sy)) return 0.0;
  const double fu = std::floor(u), fv = std::floor(v);
  const double au = std::floor((u - fu) * 256) / 256, av = std::floor((v - fv) * 256) / 256;
  float q[4];
  const long iu = static_cast<long>(fu), iv = static_cast<long>(fv);
  for (int t = 0; t < 4; ++t) {
    const long i = iu + (t & 1), j = iv + (t >> 1);
    q[t] = (i >= 0 && i < sx && j >= 0 && j < sy) ? I[j * sx + i] : 0.0f;
  }
  return (1 - av) * ((1 - au) * q[0] + au * q[1]) + av * ((1 - au) * q[2] + au * q[3]);
}
}  // namespace

TEST(FdkInterpolationBudget, EightBitWeightsStayWithinTheHardwareTolerance) {
  CArmGeometry g;  // the crosscheck problem: 62 views of 156×120 at 2.56 mm
  g.projections = 62;
  g.sx = 156;
  g.sy = 120;
  g.pixel_mm = 2.56;
  const ProjectionStack p = simulate_preprocessed(shepp_logan_3d(), g, {});
  const Grid3 grid = rabbit_grid(32);
  std::vector<double> ref(grid.count(), 0.0);
  backproject_reference(grid, {p.sx, p.sy, p.count(), p.matrices.data(), p.pixels.data()}, ref.data());
  VolumeF exact(grid), hw(grid);
  for (std::size_t i = 0; i < ref.size(); ++i) exact.data[i] = static_cast<float>(ref[i]);
#pragma omp parallel for
  for (int k = 0; k < 32; ++k)
    for (int n = 0; n < p.count(); ++n)
      for (int j = 0; j < 32; ++j)
        for (int i = 0; i < 32; ++i) {
          const auto c = grid.centre(i, j, k);
          const auto q = p.matrices[n].project(c[0], c[1], c[2]);
          hw.at(i, j, k) += static_cast<float>(bilinear_8bit(p.image(n), p.sx, p.sy, q.u, q.v) / (q.w * q.w));
        }
  const double rel = relative_l2(hw.data, exact.data);
  const std::array<float, 2> hu{50000.0f, 0.0f};
  const RabbitMetric m = rabbit_metric(to_hu(hw, hu), to_hu(exact, hu));
  // Measured on the default scene's problem at L = 64: 1.6e-3 and 83.5 dB (truncation), 8.0e-4
  // and 86.7 dB (rounding).
  std::printf("8-bit weights vs exact: relative L2 %.3e, PSNR %.1f dB\n", rel, m.psnr_db);
  EXPECT_LT(rel, 5e-3);
  EXPECT_GT(rel, 1e-5);  // the emulation does change the result
  EXPECT_GE(m.psnr_db, 60.0);
}
