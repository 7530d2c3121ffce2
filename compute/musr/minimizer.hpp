// The minimiser of the musr problem: MIGRAD-like quasi-Newton with bounds (NLopt's L-BFGS
// on step-scaled parameters), HESSE errors from the inverse Hessian, MINOS-style profile scans.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compute/musr/fit_problem.hpp"
#include "compute/musr/msr.hpp"

namespace tomo::musr {

struct FitParameterState {
  std::string name;
  double value = 0.0;
  double step = 0.0;            // initial step (scale of the parameter)
  std::optional<double> lower, upper;
  bool free = false;
  double error = 0.0;           // HESSE
  std::optional<double> minos_minus, minos_plus;  // MINOS (minus is negative)
};

struct FitResult {
  std::vector<FitParameterState> params;
  double fmin = 0.0;
  double edm = 0.0;             // ½ gᵀ H⁻¹ g at the end
  double up = 1.0;              // 1 for χ², 0.5 for musrfit's max-likelihood (see docs/musr.md)
  int evaluations = 0;          // evaluate() + evaluate_with_gradient() calls
  bool converged = false;
  bool hesse_ok = false;
  std::vector<std::vector<double>> covariance;  // free parameters, in order
  std::vector<std::string> log;                 // one line per command run
  int free_count() const;
};

// Runs the COMMANDS of the msr (MIGRAD/MINIMIZE/SIMPLEX → quasi-Newton, HESSE, MINOS, FIX,
// RELEASE; SAVE, STRATEGY and SET are accepted and ignored) on an uploaded evaluator.
// Parameters with step 0 or used by no model start fixed. `progress` is called per command.
FitResult run_fit(Chi2Evaluator& ev, const MsrFile& msr, const std::vector<bool>& used, Statistic statistic,
                  const std::function<void(const std::string&)>& progress = {});

// The pieces, for tests and benches.
void migrad(Chi2Evaluator& ev, FitResult& r);
void hesse(Chi2Evaluator& ev, FitResult& r);
void minos(Chi2Evaluator& ev, FitResult& r);

}  // namespace tomo::musr
