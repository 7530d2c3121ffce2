// The `cpu` backend of the oat imaging model: H_int = H_eir·D·H_srt and its exact transpose in
// double precision, OpenMP over data samples (forward) and per-thread images (adjoint).
#include <omp.h>

#include <algorithm>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/stages.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/params.hpp"

namespace tomo::oat {

namespace {

class CpuModel final : public Model {
 public:
  std::string describe() const override { return str_cat("cpu: ", threads(), " OpenMP threads, double"); }

  void configure(const OatGeometry& g, const ModelOptions& o) override {
    if (o.kind != ModelKind::interpolation)
      throw UnavailableError("oat cpu: model '" + to_string(o.kind) + "' is not implemented");
    g.validate("oat cpu model");
    ref_ = std::make_unique<InterpolationStages>(g, o);
    opt_ = o;
  }

  void forward(std::span<const double> alpha, std::span<double> u) override { model().forward(alpha, u); }
  void adjoint(std::span<const double> u, std::span<double> alpha) override { model().adjoint(u, alpha); }

 private:
  int threads() const { return opt_.threads > 0 ? opt_.threads : omp_get_max_threads(); }
  InterpolationStages& model() {
    if (!ref_) throw Error("oat cpu model: configure() was not called");
    return *ref_;
  }

  ModelOptions opt_;
  std::unique_ptr<InterpolationStages> ref_;
};

const BackendRegistrar<Model> kRegisterCpu({"cpu", kPriorityCpu, nullptr, [] { return std::make_unique<CpuModel>(); }});

}  // namespace

}  // namespace tomo::oat
