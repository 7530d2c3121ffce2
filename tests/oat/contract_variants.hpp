// The backend options and the geometry every oat contract suite uses (model_contract.hpp,
// fbp_contract.hpp): one place where a backend's variants and their tolerances are set.
#pragma once
#include <string>
#include <vector>

#include "compute/oat/model.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat::test {

struct Variant {
  std::string name;
  ModelOptions model;
  FbpOptions fbp;
  double forward_tol, adjoint_tol, fbp_tol, identity_tol;  // identity_tol < 0: reported only
};

// The one place where backend options are set. exact: fp32 weights, 1e-4 relative L2 vs cpu
// and the adjoint identity to 1e-5; hardware: the texture unit's 8-bit weights (forward and
// FBP 2e-2; its adjoint is still the exact scatter, so the identity is only reported).
inline std::vector<Variant> variants_of(const std::string& backend) {
  auto make = [](const char* name, Interpolation i, bool portable, int threads, double ftol, double itol) {
    Variant v{name, {}, {}, ftol, 1e-4, ftol, itol};
    v.model.interpolation = v.fbp.interpolation = i;
    v.model.portable = portable;
    v.model.threads = v.fbp.threads = threads;
    return v;
  };
  using enum Interpolation;
  if (backend == "cpu") return {make("1 thread", exact, false, 1, 1e-12, 1e-12)};
  if (backend == "gl-compute")
    return {make("exact", exact, false, 0, 1e-4, 1e-5), make("hardware", hardware, false, 0, 2e-2, -1),
            make("exact portable", exact, true, 0, 1e-4, 1e-5)};
  return {make("exact", exact, false, 0, 1e-4, 1e-5), make("hardware", hardware, false, 0, 2e-2, -1)};
}

// 12³ voxels of 1 mm, 4 × 8 transducers on 20 mm, a Gaussian EIR: every stage is exercised.
inline OatGeometry contract_geometry() { return small_geometry(12, 1.0, 4, 8, 20.0, 5.0, EirKind::gaussian); }

}  // namespace tomo::oat::test
