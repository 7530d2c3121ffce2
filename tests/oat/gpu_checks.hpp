// Checks every GPU backend of the oat operators passes (used by gl_compute_*_test.cpp here and by
// cuda_*_gpu_test.cpp on the GPU machine): H_int forward and transpose equal to the cpu (double)
// within a stated relative L2, the backend's own adjoint identity, and the FBP of simulated
// blurred-sphere data (independent of the operators) equal to the cpu's.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/phantom.hpp"
#include "tests/oat/small_geometry.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::oat::test {

// Tolerances, relative L2 vs cpu. exact: kernel_math in fp32 (measured 5e-7 … 4e-6 on llvmpipe
// once shell.glsl takes θ_max from the host and the ring band without cancellation, both GPU
// backends; 2e-5 at R = 65 mm with 0.6 mm voxels). hardware: the texture unit's 8-bit
// interpolation weights (NVIDIA; llvmpipe filters in fp32) on random voxel values, the worst case.
constexpr double kExactTolerance = 1e-4;
constexpr double kHardwareTolerance = 3e-2;
// The FBP formula holds D_k = p_{k+1} − p_k constant on [k, k+1): the image jumps where a
// voxel-transducer distance crosses a sample. Without the double refinement of k̃ next to
// sample boundaries, fp32 distances landed a few pairs on the other side of the cpu's: 1.7e-3 on
// llvmpipe on this test's geometry; with it, fp32 accumulation is left (2e-7).
constexpr double kFbpExactTolerance = 1e-5;
// |⟨Hx, y⟩/⟨x, Hᵀy⟩ − 1|: exact pair in float (≤ 1e-5); hardware forward with the exact
// transpose: the mismatch of the 8-bit weights, stated by the test's output.
constexpr double kExactAdjoint = 1e-5;
constexpr double kHardwareAdjoint = 2e-2;

// Two runs of the same CUDA kernels on the same input agree bit for bit except where float atomics
// add several terms to one value (the deferred FBP's fix-up pass, H_intᵀ's scatter): their order
// varies from run to run. Reordering a float sum of k terms moves it by up to about k·ε of the
// sum of their magnitudes: H_intᵀ adds tens of terms to a voxel, and 10 ulp of the largest value
// has been seen between two runs on an H100. max |a − b| / max |b|:
inline double atomic_order_difference(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return 1e300;
  double d = 0, m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::abs(double(a[i]) - double(b[i])));
    m = std::max(m, std::abs(double(b[i])));
  }
  return m > 0 ? d / m : d;
}
constexpr double kAtomicOrderTolerance = 1e-5;  // ≈ 84 ulp of the largest value, as the Python test

struct ModelRun {
  std::vector<double> u, alpha;  // H x and Hᵀ y
};

inline ModelRun run_model(const std::string& backend, const OatGeometry& g, const ModelOptions& o,
                          const std::vector<double>& x, const std::vector<double>& y) {
  auto op = BackendRegistry<Model>::instance().create(backend);
  op->configure(g, o);
  ModelRun r{std::vector<double>(g.data_size()), std::vector<double>(g.grid.count())};
  op->forward(x, r.u);
  op->adjoint(y, r.alpha);
  return r;
}

// H_int of `backend` against cpu on the small geometry (with or without an EIR).
inline void check_model(const std::string& backend, Interpolation interp, EirKind eir, bool portable = false) {
  const OatGeometry g = small_geometry(12, 1.0, 4, 8, 20.0, 5.0, eir);
  ModelOptions o;
  o.interpolation = interp;
  o.portable = portable;
  const auto x = random_positive(g.grid.count(), 3), y = random_positive(g.data_size(), 4);
  const ModelRun ref = run_model("cpu", g, o, x, y);
  const ModelRun got = run_model(backend, g, o, x, y);
  const double e_fwd = relative_l2(got.u, ref.u), e_adj = relative_l2(got.alpha, ref.alpha);
  const double mismatch = tomo::test::adjoint_mismatch(tomo::test::inner<double, double>(got.u, y),
                                                       tomo::test::inner<double, double>(x, got.alpha));
  const bool exact = interp == Interpolation::exact;
  std::printf("%s %s%s, eir %s: forward rel. L2 vs cpu %.3g, transpose %.3g, adjoint mismatch %.3g\n",
              backend.c_str(), to_string(interp).c_str(), portable ? " portable" : "",
              std::string(enum_name(kEirKindNames, eir)).c_str(), e_fwd, e_adj, mismatch);
  EXPECT_LT(e_fwd, exact ? kExactTolerance : kHardwareTolerance);
  EXPECT_LT(e_adj, kExactTolerance) << "the transpose is the exact gather in both modes";
  EXPECT_LT(mismatch, exact ? kExactAdjoint : kHardwareAdjoint);
}

// FBP of simulated blurred spheres, `backend` against cpu (relative L2 over the image).
inline void check_fbp(const std::string& backend, Interpolation interp, double tolerance) {
  const OatGeometry g = small_geometry(16, 0.75, 8, 16, 30.0, 10.0);
  OatPhantom ph;
  ph.spheres = {{{1.5, -1.0, 0.5}, 2.5, 1.0, 0.5}, {{-2.5, 2.0, -1.0}, 1.5, 2.0, 0.4}};
  const auto p = simulate_pressure(g, ph, Noise{});
  FbpOptions o;
  o.interpolation = interp;
  std::vector<double> ref(g.grid.count()), got(g.grid.count());
  auto cpu = BackendRegistry<Fbp>::instance().create("cpu");
  cpu->configure(g, o);
  cpu->reconstruct(p, ref);
  auto op = BackendRegistry<Fbp>::instance().create(backend);
  op->configure(g, o);
  op->reconstruct(p, got);
  const double e = relative_l2(got, ref);
  std::printf("%s fbp %s: rel. L2 vs cpu %.3g (%s)\n", backend.c_str(), to_string(interp).c_str(), e,
              op->describe().c_str());
  EXPECT_LT(e, tolerance);
}

}  // namespace tomo::oat::test
