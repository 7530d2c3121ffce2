// The gathered transpose H_srtᵀ at the paper scene's scale, one check for every GPU backend
// (cuda_model_gpu_test.cpp, gl_compute_model_test.cpp): 0.2 mm voxels 65 mm from the transducers,
// shells 0.075 mm apart, tiles cut by the grid's edge; H and Hᵀ against the cpu's and the fp32
// adjoint identity.
#pragma once
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/oat/gpu_checks.hpp"

namespace tomo::oat::test {

inline void check_gather_at_paper_scale(const std::string& backend, int rings, int views) {
  const OatGeometry g = small_geometry(20, 0.2, rings, views, 65.0, 20.0);
  const ModelOptions o;
  // Smooth data, as measured data are: with random signs every voxel's sum would cancel to the
  // fp32 error of the patch positions 65 mm out (~4e-5 of a term, the scatter's too).
  OatPhantom ph;
  ph.spheres = {{{0.4, -0.3, 0.2}, 0.8, 1.0, 0.2}};
  const auto x = random_positive(g.grid.count(), 5);
  const auto y = simulate_pressure(g, ph, Noise{});
  const ModelRun ref = run_model("cpu", g, o, x, y);
  const ModelRun got = run_model(backend, g, o, x, y);
  const double e_fwd = relative_l2(got.u, ref.u), e_adj = relative_l2(got.alpha, ref.alpha);
  const double mismatch = tomo::test::adjoint_mismatch(tomo::test::inner<double, double>(got.u, y),
                                                       tomo::test::inner<double, double>(x, got.alpha));
  std::printf("%s at paper scale, %dx%d transducers: forward rel. L2 vs cpu %.3g, gathered transpose %.3g, adjoint "
              "mismatch %.3g\n",
              backend.c_str(), rings, views, e_fwd, e_adj, mismatch);
  // 65 mm out, fp32 patch positions put the GPU's forward ~1e-3 from the cpu's double (measured
  // 1.3e-3 on an H100, the scatter's and the forward's alike); the gathered transpose must be no
  // further from the cpu's than the forward is, and exactly its adjoint.
  constexpr double kPaperScale = 3e-3;
  EXPECT_LT(e_fwd, kPaperScale);
  EXPECT_LT(e_adj, 1.5 * e_fwd + kExactTolerance);
  EXPECT_LT(mismatch, kExactAdjoint);
}

}  // namespace tomo::oat::test
