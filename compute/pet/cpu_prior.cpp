// The `cpu` backend of the relative difference prior: the double-precision reference, OpenMP
// over voxels, each voxel gathering its 26 neighbours (no atomics, deterministic).
#include <cmath>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/pet/prior.hpp"
#include "compute/pet/rdp_math.hpp"

namespace tomo::pet {

namespace {

enum class Term { value, gradient, hessian };

class CpuPrior final : public PriorOperator {
 public:
  std::string describe() const override { return "cpu (double)"; }
  void synchronize() override {}

  void configure(const PriorGrid& g, const RdpParams& p, std::span<const double> kappa) override {
    if (!kappa.empty() && kappa.size() != g.count())
      throw Error(str_cat("pet prior: ", kappa.size(), " kappa values for ", g.count(), " voxels"));
    grid_ = g;
    params_ = p;
    kappa_.assign(kappa.begin(), kappa.end());
  }

  double value(std::span<const double> x) override {
    const auto per = pass(x, Term::value);
    double s = 0;
    for (double v : per) s += v;
    return 0.5 * s;
  }
  std::vector<double> gradient(std::span<const double> x) override { return pass(x, Term::gradient); }
  std::vector<double> hessian_diagonal(std::span<const double> x) override { return pass(x, Term::hessian); }
  PriorDerivatives gradient_and_hessian(std::span<const double> x) override {
    PriorDerivatives r;
    r.gradient = pass(x, Term::gradient, &r.hessian_diagonal);
    return r;
  }

 private:
  // One pass of `term`; with `hessian` given, the Hessian diagonal goes there in the same walk
  // (term is then the gradient).
  std::vector<double> pass(std::span<const double> x, Term term, std::vector<double>* hessian = nullptr) const {
    const std::size_t n = grid_.count();
    if (x.size() != n) throw Error(str_cat("pet prior: image of ", x.size(), " voxels, grid has ", n));
    const int nx = grid_.dims[0], ny = grid_.dims[1], nz = grid_.dims[2];
    const double g = params_.gamma, e = params_.epsilon;
    const auto& v = grid_.voxel_mm;
    std::vector<double> out(n, 0.0);
    if (hessian) hessian->assign(n, 0.0);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          const std::size_t a = (std::size_t(k) * ny + j) * nx + i;
          const double ka = kappa_.empty() ? 1.0 : kappa_[a];
          if (ka == 0) continue;
          double sum = 0, sum2 = 0;
          for (int dk = -1; dk <= 1; ++dk)
            for (int dj = -1; dj <= 1; ++dj)
              for (int di = -1; di <= 1; ++di) {
                if (!di && !dj && !dk) continue;
                const int ii = i + di, jj = j + dj, kk = k + dk;
                if (ii < 0 || jj < 0 || kk < 0 || ii >= nx || jj >= ny || kk >= nz) continue;
                const std::size_t b = (std::size_t(kk) * ny + jj) * nx + ii;
                const double kb = kappa_.empty() ? 1.0 : kappa_[b];
                if (kb == 0) continue;
                const double w = rdp_weight<double>(di, dj, dk, v[0], v[1], v[2]) * kb;
                const double t = term == Term::value      ? rdp_value(x[a], x[b], g, e)
                                 : term == Term::gradient ? rdp_derivative(x[a], x[b], g, e)
                                                          : rdp_second_derivative(x[a], x[b], g, e);
                sum += w * t;
                if (hessian) sum2 += w * rdp_second_derivative(x[a], x[b], g, e);
              }
          out[a] = ka * sum;
          if (hessian) (*hessian)[a] = ka * sum2;
        }
    return out;
  }

  PriorGrid grid_;
  RdpParams params_;
  std::vector<double> kappa_;
};

const BackendRegistrar<PriorOperator> kRegisterCpu({"cpu", kPriorityCpu, nullptr, [] { return std::make_unique<CpuPrior>(); }});

}  // namespace

}  // namespace tomo::pet
