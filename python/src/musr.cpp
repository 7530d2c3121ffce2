// tomoraster.musr: an msr file and its data as a fit problem: χ² (or −2 ln L) and its gradient
// at any parameter vector on a backend, and the msr's COMMANDS run as `tomoraster fit` runs them.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>

#include "compute/core/registry.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/minimizer.hpp"
#include "compute/musr/msr.hpp"
#include "compute/musr/printout.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"

namespace tomo::py {
namespace {

class MusrFit {
 public:
  MusrFit(const std::string& path, const std::string& backend, bool single_precision) {
    msr_ = musr::read_msr(path);
    setup_ = musr::prepare_fit(msr_, [&](const musr::MsrRun& r) { return musr::load_run_data(msr_, r); });
    auto& reg = BackendRegistry<musr::Chi2Evaluator>::instance();
    ev_ = reg.create(reg.resolve(backend));
    musr::EvaluatorOptions o;
    o.single_precision = single_precision;
    ev_->configure(o);
    nb::gil_scoped_release release;
    ev_->upload(setup_.data);
  }
  double chi2(const AnyArray& params) {
    const double* p = params_input(params);
    nb::gil_scoped_release release;
    return ev_->evaluate({p, std::size_t(setup_.data.num_params)});
  }
  std::pair<double, DoubleArray> chi2_with_gradient(const AnyArray& params) {
    const double* p = params_input(params);
    std::vector<double> g(setup_.data.num_params);
    double v;
    {
      nb::gil_scoped_release release;
      v = ev_->evaluate_with_gradient({p, g.size()}, g);
    }
    return {v, to_numpy(std::move(g), {std::size_t(setup_.data.num_params)})};
  }
  // The msr's COMMANDS (MIGRAD, HESSE, MINOS, FIX, ...), as JSON text: the report's "fit" entry
  // (printout.hpp fit_json) with the minimum, the covariance of the free parameters and the log.
  std::string fit() {
    musr::FitResult r;
    {
      nb::gil_scoped_release release;
      r = musr::run_fit(*ev_, msr_, setup_.used, setup_.data.statistic);
    }
    nlohmann::json j = musr::fit_json(r, musr::statistic_of(r, setup_, ""), setup_);
    j["fmin"] = r.fmin;
    j["covariance"] = r.covariance;
    j["log"] = r.log;
    return j.dump();
  }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& p : msr_.params) n.push_back(p.name);
    return n;
  }
  std::vector<double> values() const {
    std::vector<double> v;
    for (const auto& p : msr_.params) v.push_back(p.value);
    return v;
  }
  std::string statistic() const { return setup_.data.statistic == musr::Statistic::chi2 ? "chi2" : "max_likelihood"; }
  std::size_t bins() const { return setup_.data.bins(); }
  std::string describe() const { return ev_->describe(); }

 private:
  const double* params_input(const AnyArray& a) const {
    return double_input(a, "params", {std::size_t(setup_.data.num_params)});
  }
  musr::MsrFile msr_;
  musr::FitSetup setup_;
  std::unique_ptr<musr::Chi2Evaluator> ev_;
};

}  // namespace

void bind_musr(nb::module_& m) {
  nb::class_<MusrFit>(m, "MusrFit")
      .def(nb::init<const std::string&, const std::string&, bool>(), nb::arg("msr"), nb::arg("backend"),
           nb::arg("single_precision"))
      .def("chi2", &MusrFit::chi2, nb::arg("params"))
      .def("chi2_with_gradient", &MusrFit::chi2_with_gradient, nb::arg("params"))
      .def("fit", &MusrFit::fit)
      .def("describe", &MusrFit::describe)
      .def_prop_ro("names", &MusrFit::names)
      .def_prop_ro("values", &MusrFit::values)
      .def_prop_ro("statistic", &MusrFit::statistic)
      .def_prop_ro("bins", &MusrFit::bins);
}

}  // namespace tomo::py
