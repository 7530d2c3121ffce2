// A Model that reports every application of H or Hᵀ on a Progress: one PLS iteration is a
// forward and an adjoint, minutes each for a GPU-sized grid on the cpu, so the bar moves within
// iterations (and during the first Hᵀu) instead of staying silent.
#pragma once
#include <span>
#include <string>

#include "compute/core/progress.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

// Operator applications run_pls makes for `iterations`: Hᵀu and H·Hᵀu first, then Hᵀ and H per
// iteration after the first (CG and FISTA alike; a retried FISTA step adds one).
inline long pls_applications(int iterations) { return 1 + 2 * static_cast<long>(iterations); }

class ProgressModel final : public Model {
 public:
  ProgressModel(Model& inner, Progress& progress) : inner_(inner), progress_(progress) {}
  std::string describe() const override { return inner_.describe(); }
  void configure(const OatGeometry& g, const ModelOptions& o) override { inner_.configure(g, o); }
  void forward(std::span<const double> alpha, std::span<double> pressure) override {
    inner_.forward(alpha, pressure);
    progress_.step(1);
  }
  void adjoint(std::span<const double> pressure, std::span<double> alpha) override {
    inner_.adjoint(pressure, alpha);
    progress_.step(1);
  }
  void synchronize() override { inner_.synchronize(); }

 private:
  Model& inner_;
  Progress& progress_;
};

}  // namespace tomo::oat
