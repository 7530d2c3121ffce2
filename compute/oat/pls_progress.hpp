// A Model that reports every application of H or Hᵀ on a Progress: one PLS iteration is a
// forward and an adjoint, minutes each for a GPU-sized grid on the cpu, so the bar moves within
// iterations (and during the first Hᵀu) instead of staying silent. It also counts and times the
// calls (each returns host vectors, so its wall time holds the device work and the transfers):
// the PLS stage less these is the solver's own host work (report.json `pls_time`).
#pragma once
#include <chrono>
#include <span>
#include <string>

#include "compute/core/progress.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

// Operator applications run_pls makes for `iterations`: Hᵀu and H·Hᵀu first, then Hᵀ and H per
// iteration after the first (CG and FISTA alike; a retried FISTA step adds one).
inline long pls_applications(int iterations) { return 1 + 2 * static_cast<long>(iterations); }

// Calls of one operator and their wall time in seconds.
struct OperatorTime {
  long calls = 0;
  double seconds = 0;
};

class ProgressModel final : public Model {
 public:
  ProgressModel(Model& inner, Progress& progress) : inner_(inner), progress_(progress) {}
  std::string describe() const override { return inner_.describe(); }
  void configure(const OatGeometry& g, const ModelOptions& o) override { inner_.configure(g, o); }
  void forward(std::span<const double> alpha, std::span<double> pressure) override {
    timed(forward_, [&] { inner_.forward(alpha, pressure); });
    progress_.step(1);
  }
  void adjoint(std::span<const double> pressure, std::span<double> alpha) override {
    timed(adjoint_, [&] { inner_.adjoint(pressure, alpha); });
    progress_.step(1);
  }
  void synchronize() override { inner_.synchronize(); }
  const OperatorTime& forward_time() const { return forward_; }
  const OperatorTime& adjoint_time() const { return adjoint_; }

 private:
  template <class F>
  static void timed(OperatorTime& t, F&& call) {
    const auto start = std::chrono::steady_clock::now();
    call();
    t.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++t.calls;
  }

  Model& inner_;
  Progress& progress_;
  OperatorTime forward_, adjoint_;
};

}  // namespace tomo::oat
