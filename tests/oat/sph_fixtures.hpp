// H_sph test fixtures shared by the contract, multi-rank and multi-GPU tests: the setups (point
// and rectangular faces), one backend's H x and Hᵀ y, the complex relative L2.
#pragma once
#include <cmath>
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "compute/core/registry.hpp"
#include "compute/oat/sph_model.hpp"
#include "compute/oat/sph_spectrum.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat::test {

// Float phases: 2πf d/c₀ rounded at ~1e-7 of f·d/c₀ turns (here ≤ 30 turns), 8-step recurrences.
inline constexpr double kSphFloatTolerance = 1e-4;

struct SphOutputs {
  std::vector<std::complex<double>> hx;
  std::vector<double> hty;
};

inline SphOutputs run_sph(const std::string& name, const OatGeometry& g, const SphOptions& o,
                          const std::vector<double>& x, const std::vector<std::complex<double>>& y) {
  SphOutputs out{std::vector<std::complex<double>>(y.size()), std::vector<double>(x.size())};
  auto m = BackendRegistry<SphModel>::instance().create(name);
  m->configure(g, o);
  m->forward(x, out.hx);
  m->adjoint(y, out.hty);
  m->synchronize();
  return out;
}

// Setups: point transducers, and 2 × 1.5 mm faces (4 × 4 points).
inline std::vector<SphOptions> sph_contract_options(const OatGeometry& g) {
  std::vector<SphOptions> out(2);
  out[0].setup = SphSetup::resolve(g, SphSetup{}, 0);
  SphSetup face;
  face.aperture_width_mm = 2.0;
  face.aperture_height_mm = 1.5;
  face.aperture_points = 4;
  out[1].setup = SphSetup::resolve(g, face, 0);
  return out;
}

// The cpu backend configured for setup `s`.
inline std::unique_ptr<SphModel> cpu_sph(const OatGeometry& g, const SphSetup& s) {
  auto m = BackendRegistry<SphModel>::instance().create("cpu");
  SphOptions o;
  o.setup = s;
  m->configure(g, o);
  return m;
}

inline double rel_l2(const std::vector<std::complex<double>>& a, const std::vector<std::complex<double>>& ref) {
  double e = 0, n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) e += std::norm(a[i] - ref[i]), n += std::norm(ref[i]);
  return std::sqrt(e / n);
}

}  // namespace tomo::oat::test
