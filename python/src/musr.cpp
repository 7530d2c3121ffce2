// tomoraster.musr: an msr file and its data as a fit problem: χ² (or −2 ln L) and its gradient
// at any parameter vector on a backend, and the msr's COMMANDS run as `tomoraster fit` runs them.
// With the cuda backend the statistic also reads the caller's fitted bins from a CUDA array
// (cuda/musr/device_arrays.hpp: the registry's cuda evaluator, the CLI's kernels).
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>

#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/minimizer.hpp"
#include "compute/musr/msr.hpp"
#include "compute/musr/printout.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/device.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/musr/device_arrays.hpp"
#endif

namespace tomo::py {
namespace {

class MusrFit {
 public:
  MusrFit(const std::string& path, const std::string& backend, bool single_precision) {
    msr_ = musr::read_msr(path);
    setup_ = musr::prepare_fit(msr_, [&](const musr::MsrRun& r) { return musr::load_run_data(msr_, r); });
    auto& reg = BackendRegistry<musr::Chi2Evaluator>::instance();
    backend_ = reg.resolve(backend);
    ev_ = reg.create(backend_);
    single_ = single_precision;
    device_ = runtime_options().cuda_device;
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
  // The statistic (and gradient) over the caller's fitted bins: a CUDA array of bins() values
  // (float64, float32 with single_precision), the runs' bins concatenated as data() gives them.
  double chi2_device(const AnyArray& params, const AnyArray& bins) {
    const double* p = params_input(params);
    const void* b = bins_input(bins);
#ifdef TOMO_HAVE_CUDA
    nb::gil_scoped_release release;
    return device_evaluator().evaluate({p, std::size_t(setup_.data.num_params)}, b);
#else
    (void)p, (void)b;
    return 0.0;
#endif
  }
  std::pair<double, DoubleArray> chi2_with_gradient_device(const AnyArray& params, const AnyArray& bins) {
    const double* p = params_input(params);
    const void* b = bins_input(bins);
    std::vector<double> g(setup_.data.num_params);
    double v = 0.0;
#ifdef TOMO_HAVE_CUDA
    {
      nb::gil_scoped_release release;
      v = device_evaluator().evaluate_with_gradient({p, g.size()}, g, b);
    }
#else
    (void)p, (void)b;
#endif
    return {v, to_numpy(std::move(g), {std::size_t(setup_.data.num_params)})};
  }
  // The fitted bins of every run, concatenated (the layout chi2(..., bins=) reads).
  DoubleArray data() const {
    std::vector<double> y;
    y.reserve(setup_.data.bins());
    for (const auto& r : setup_.data.runs) y.insert(y.end(), r.y.begin(), r.y.end());
    return to_numpy(std::move(y), {setup_.data.bins()});
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
  const void* bins_input(const AnyArray& a) const {
    if (!is_cuda(a)) throw nb::type_error("bins: a CUDA array is needed here (without bins= the fit's own bins are used)");
    require_cuda_build("musr: CUDA bins");
    if (backend_ != "cuda")
      throw nb::type_error(("bins: a GPU array was given to the " + backend_ +
                            " backend: use backend=\"cuda\" (without bins= the fit's own bins are used)")
                               .c_str());
    if (a.device_id() != device_)
      throw nb::value_error(("bins: on CUDA device " + std::to_string(a.device_id()) +
                             ", but the fit runs on CUDA device " + std::to_string(device_))
                                .c_str());
    if (single_ ? a.dtype() != nb::dtype<float>() : a.dtype() != nb::dtype<double>())
      throw nb::type_error(single_ ? "bins: dtype must be float32 (the fit is single_precision)"
                                   : "bins: dtype must be float64 (float32 with single_precision=True)");
    const std::vector<std::size_t> want{setup_.data.bins()};
    if (shape_of(a) != want)
      throw nb::value_error(("bins: shape " + shape_text(shape_of(a)) + ", expected " + shape_text(want) +
                             " (the fitted bins of every run, as Fit.data())")
                                .c_str());
    require_c_contiguous(a, "bins");
    return a.data();
  }
#ifdef TOMO_HAVE_CUDA
  musr::DeviceBinsEvaluator& device_evaluator() {
    if (!dev_) dev_ = std::make_unique<musr::DeviceBinsEvaluator>(setup_.data, single_, device_);
    return *dev_;
  }
#endif
  musr::MsrFile msr_;
  musr::FitSetup setup_;
  std::unique_ptr<musr::Chi2Evaluator> ev_;
  std::string backend_;
  bool single_ = false;
  int device_ = 0;
#ifdef TOMO_HAVE_CUDA
  // A second cuda evaluator for the caller's bins, so that ev_ keeps the msr's own.
  std::unique_ptr<musr::DeviceBinsEvaluator> dev_;
#endif
};

}  // namespace

void bind_musr(nb::module_& m) {
  nb::class_<MusrFit>(m, "MusrFit")
      .def(nb::init<const std::string&, const std::string&, bool>(), nb::arg("msr"), nb::arg("backend"),
           nb::arg("single_precision"))
      .def("chi2", &MusrFit::chi2, nb::arg("params"))
      .def("chi2_with_gradient", &MusrFit::chi2_with_gradient, nb::arg("params"))
      .def("chi2_device", &MusrFit::chi2_device, nb::arg("params"), nb::arg("bins"))
      .def("chi2_with_gradient_device", &MusrFit::chi2_with_gradient_device, nb::arg("params"), nb::arg("bins"))
      .def("data", &MusrFit::data)
      .def("fit", &MusrFit::fit)
      .def("describe", &MusrFit::describe)
      .def_prop_ro("names", &MusrFit::names)
      .def_prop_ro("values", &MusrFit::values)
      .def_prop_ro("statistic", &MusrFit::statistic)
      .def_prop_ro("bins", &MusrFit::bins);
}

}  // namespace tomo::py
