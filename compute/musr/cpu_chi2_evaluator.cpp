// The cpu backend of musr::Chi2Evaluator: double precision, OpenMP over bins, gradient by
// the forward-mode evaluator of the model program (the reference the GPU backends match).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/musr/fit_problem.hpp"

namespace tomo::musr {
namespace {

// One bin's statistic term and its derivative with respect to θ (notes: musrfit-facts.md).
inline double term(Statistic s, double y, double sigma, double scale, double theta, double& dterm) {
  if (s == Statistic::chi2) {
    const double r = (y - theta) / sigma;
    dterm = -2.0 * r / sigma;
    return r * r;
  }
  const double yc = scale * y, tc = scale * theta;
  if (tc <= 0.0) {  // musrfit skips such bins
    dterm = 0.0;
    return 0.0;
  }
  if (yc > 1.0e-9) {
    dterm = 2.0 * scale * (1.0 - yc / tc);
    return 2.0 * ((tc - yc) + yc * std::log(yc / tc));
  }
  dterm = 2.0 * scale;
  return 2.0 * (tc - yc);
}

class CpuChi2Evaluator final : public Chi2Evaluator {
 public:
  std::string describe() const override {
    return "cpu: double, " + std::to_string(threads()) + " OpenMP threads";
  }
  void synchronize() override {}
  void configure(const EvaluatorOptions& options) override { options_ = options; }
  void upload(const FitData& data) override {
    for (const auto& r : data.runs) {
      if (r.t.size() != r.y.size() || r.t.size() != r.sigma.size()) throw Error("musr: run bins of unequal length");
      if (r.model.num_params > data.num_params) throw Error("musr: model indexes more parameters than the fit has");
      for (double s : r.sigma)
        if (!(s > 0.0)) throw InputError("musr: a bin error is zero or not a number");
    }
    data_ = data;
  }
  double evaluate(std::span<const double> params) override { return run(params, {}); }
  double evaluate_with_gradient(std::span<const double> params, std::span<double> grad) override {
    if (static_cast<int>(grad.size()) != data_.num_params) throw Error("musr: gradient has the wrong size");
    return run(params, grad);
  }

 private:
  int threads() const { return options_.threads > 0 ? options_.threads : omp_get_max_threads(); }

  double run(std::span<const double> params, std::span<double> grad) {
    if (static_cast<int>(params.size()) != data_.num_params) throw Error("musr: parameter vector has the wrong size");
    const bool with_grad = !grad.empty();
    const auto np = static_cast<std::size_t>(data_.num_params);
    std::fill(grad.begin(), grad.end(), 0.0);
    double total = 0.0;
    // One parallel region per call, and no more threads than 16 Ki bins each: forking and
    // barriers cost more than small fits gain (and spin badly on a loaded machine).
    const long per_thread = 16384;
    const int nt = static_cast<int>(std::clamp<long>(static_cast<long>(data_.bins()) / per_thread, 1, threads()));
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
      std::vector<double> gl(with_grad ? np : 0, 0.0);
      double local = 0.0;
      for (const auto& r : data_.runs) {
        ProgramEvaluator ev(r.model);
        ev.prepare(params, with_grad);
        const auto& used = ev.used();
        std::vector<double> dth(used.size());
        const auto n = static_cast<long>(r.t.size());
#pragma omp for schedule(static) nowait
        for (long k = 0; k < n; ++k) {
          double dterm = 0.0;
          if (with_grad) {
            const double th = ev.value_and_gradient(r.t[k], dth);
            local += term(data_.statistic, r.y[k], r.sigma[k], r.scale, th, dterm);
            for (std::size_t j = 0; j < used.size(); ++j) gl[used[j]] += dterm * dth[j];
          } else {
            local += term(data_.statistic, r.y[k], r.sigma[k], r.scale, ev.value(r.t[k]), dterm);
          }
        }
      }
#pragma omp critical
      {
        total += local;
        for (std::size_t i = 0; i < gl.size(); ++i) grad[i] += gl[i];
      }
    }
    return total;
  }

  EvaluatorOptions options_;
  FitData data_;
};

const BackendRegistrar<Chi2Evaluator> kRegisterCpu({"cpu", kPriorityCpu, nullptr,
                                                    [] { return std::make_unique<CpuChi2Evaluator>(); }});

}  // namespace
}  // namespace tomo::musr
