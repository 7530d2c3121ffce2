// The operator of the musr problem: χ² or −2 ln L (musrfit's max-likelihood) of all runs at
// given parameters, with its gradient. cpu, cuda and gl-compute implement it and are chosen
// by name through tomo::BackendRegistry<Chi2Evaluator>.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "compute/musr/expression.hpp"

namespace tomo::musr {

enum class Statistic { chi2, max_likelihood };

// One run's fitted bins (after grouping, packing, background handling and the fit range),
// in the form a backend uploads once. The model program gives θ(t) in the units of y: for
// single histograms N0·e^(−t/τ)(1 + A(t)) + Bkg, for asymmetry runs the asymmetry.
struct RunBins {
  Program model;
  std::vector<double> t;      // bin centre in µs relative to t0
  std::vector<double> y;      // data
  std::vector<double> sigma;  // error of y (χ²); never 0 (musrfit's weight of an empty bin: fit_setup.cpp)
  // max-likelihood: counts = scale·y and θ_counts = scale·θ (musrfit's normalizer p·Δt[ns]
  // with SCALE_N0_BKG TRUE, else 1).
  double scale = 1.0;
};

struct FitData {
  Statistic statistic = Statistic::chi2;
  int num_params = 0;  // length of the parameter vectors evaluate() receives
  std::vector<RunBins> runs;
  std::size_t bins() const {
    std::size_t n = 0;
    for (const auto& r : runs) n += r.t.size();
    return n;
  }
};

struct EvaluatorOptions {
  int threads = 0;              // cpu: OpenMP threads, 0 = all
  bool single_precision = false;  // GPU backends: float data and arithmetic (tolerance 1e-5 rel.)
};

class Chi2Evaluator {
 public:
  virtual ~Chi2Evaluator() = default;
  // The backend's name and, once configured, its device.
  virtual std::string describe() const = 0;
  // Waits for outstanding device work (timing).
  virtual void synchronize() = 0;
  // Options; must come first.
  virtual void configure(const EvaluatorOptions& options) = 0;
  // Copies the bins of every run into the backend (once per fit) and prepares the model
  // (GPU: generates and compiles the kernel, cached per program).
  virtual void upload(const FitData& data) = 0;
  // Σ over runs and bins: χ² = Σ (y−θ)²/σ², or
  // max-likelihood 2Σ[(θc−yc) + yc·ln(yc/θc)] with yc = scale·y, θc = scale·θ (log term
  // dropped where yc ≤ 1e-9; bins with θc ≤ 0 skipped, as musrfit).
  virtual double evaluate(std::span<const double> params) = 0;
  // The same value and its gradient: grad[i] = ∂/∂params[i] (grad.size() == num_params;
  // zero for parameters no model uses).
  virtual double evaluate_with_gradient(std::span<const double> params, std::span<double> grad) = 0;
};

}  // namespace tomo::musr
