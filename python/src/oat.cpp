// tomoraster.oat: [Wang2013]'s interpolation model H (forward u = Hα, adjoint Hᵀu), the fused FBP
// and PLS on NumPy arrays: images (z, y, x) float64, data (Q, K) float64 (u[q·K + k]); H and the
// FBP also on CUDA arrays in place (float32, cuda backend; cuda/oat/device_arrays.hpp).
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>

#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/oat/acquisition.hpp"
#include "compute/oat/config.hpp"
#include "compute/oat/deconvolution.hpp"
#include "compute/oat/pls.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/device.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/oat/device_arrays.hpp"
#endif

namespace tomo::py {
namespace {

// The scene's configuration and acquisition geometry: from the scene keys for simulations, from
// the data file (positions, samples, fs, c₀) for read data — the geometry a run would use.
struct OatSetup {
  oat::OatConfig config;
  oat::OatGeometry geometry;
  OatSetup(const std::string& scene, bool is_text, const std::vector<std::string>& sets)
      : config(oat::OatConfig::from_scene(load_scene(scene, is_text, sets))), geometry(config.geometry) {
    if (config.source != oat::DataSource::simulate) geometry = oat::acquire(config).geometry;
  }
  std::vector<std::size_t> image_shape() const {
    const auto& d = geometry.grid.dims;
    return {std::size_t(d[2]), std::size_t(d[1]), std::size_t(d[0])};
  }
  std::vector<std::size_t> data_shape() const {
    return {std::size_t(geometry.transducer_count()), std::size_t(geometry.time.samples)};
  }
  std::span<const double> data(const AnyArray& u, const char* name) const {
    return {double_input(u, name, data_shape()), geometry.data_size()};
  }
};

oat::Interpolation interpolation_of(const std::string& s) {
  if (s == "exact") return oat::Interpolation::exact;
  if (s == "hardware") return oat::Interpolation::hardware;
  throw nb::value_error("interpolation must be 'exact' or 'hardware'");
}

class OatModel {
 public:
  OatModel(const std::string& scene, bool is_text, const std::vector<std::string>& sets, const std::string& backend,
           const std::string& interpolation)
      : s_(scene, is_text, sets) {
    auto& reg = BackendRegistry<oat::Model>::instance();
    backend_ = reg.resolve(backend);
    op_ = reg.create(backend_);
    options_ = s_.config.model;
    options_.interpolation = interpolation_of(interpolation);
    op_->configure(s_.geometry, options_);
    device_ = runtime_options().cuda_device;
  }
  // CUDA arrays in place (cuda backend): u (Q, K) float32 = H α (z, y, x) float32, or α = Hᵀ u.
  void forward_device(const AnyArray& alpha, const OutArray& out) {
    const float* a = device_input(alpha, "alpha", s_.image_shape());
    float* u = cuda_output(out, "out", s_.data_shape(), device_);
#ifdef TOMO_HAVE_CUDA
    nb::gil_scoped_release release;
    device_model().forward(a, u);
#else
    (void)a, (void)u;
#endif
  }
  void adjoint_device(const AnyArray& data, const OutArray& out) {
    const float* u = device_input(data, "u", s_.data_shape());
    float* a = cuda_output(out, "out", s_.image_shape(), device_);
#ifdef TOMO_HAVE_CUDA
    nb::gil_scoped_release release;
    device_model().adjoint(u, a);
#else
    (void)a, (void)u;
#endif
  }
  DoubleArray forward(const AnyArray& alpha) {
    const double* a = double_input(alpha, "alpha", s_.image_shape());
    std::vector<double> u(s_.geometry.data_size());
    {
      nb::gil_scoped_release release;
      op_->forward({a, s_.geometry.grid.count()}, u);
    }
    return to_numpy(std::move(u), s_.data_shape());
  }
  DoubleArray adjoint(const AnyArray& data) {
    const auto u = s_.data(data, "u");
    std::vector<double> a(s_.geometry.grid.count());
    {
      nb::gil_scoped_release release;
      op_->adjoint(u, a);
    }
    return to_numpy(std::move(a), s_.image_shape());
  }
  // run_pls: callback(iteration, objective, residual) per iteration ≥ 1 (its result is ignored:
  // run_pls keeps α to itself until it ends). iterations/mu < 0, regulariser "" and nonnegative
  // None: the scene's oat.pls.* values.
  DoubleArray pls(const AnyArray& data, int iterations, double mu, nb::object callback, const std::string& regulariser,
                  nb::object nonnegative) {
    const auto u = s_.data(data, "u");
    oat::PlsOptions o = s_.config.pls;
    if (iterations >= 0) o.iterations = iterations;
    if (mu >= 0) o.mu = mu;
    if (!regulariser.empty()) {
      if (regulariser == "quadratic")
        o.regulariser = oat::Regulariser::quadratic;
      else if (regulariser == "tv")
        o.regulariser = oat::Regulariser::tv;
      else
        throw nb::value_error(("regulariser must be 'quadratic' or 'tv', got '" + regulariser + "'").c_str());
    }
    if (!nonnegative.is_none()) {
      if (!nb::isinstance<bool>(nonnegative)) throw nb::type_error("nonnegative must be True, False or None");
      o.nonnegative = nb::cast<bool>(nonnegative);
    }
    std::vector<double> alpha;
    try {
      nb::gil_scoped_release release;
      alpha = oat::run_pls(*op_, s_.geometry.grid, u, o, [&](const oat::PlsIteration& it) {
        if (it.iteration > 0 && !callback.is_none())
          call_python([&] { return callback(it.iteration, it.objective, it.residual); }, false);
      });
    } catch (const PythonRaised&) {
      rethrow_python();
    }
    return to_numpy(std::move(alpha), s_.image_shape());
  }
  // The scene's oat.pls.iterations and oat.pls.mu (the device PLS loop of oat.py runs in Python).
  std::tuple<int, double> pls_options() const { return {s_.config.pls.iterations, s_.config.pls.mu}; }
  // The scene's oat.pls.regulariser and oat.pls.nonnegative.
  std::tuple<std::string, bool> pls_penalty() const {
    return {oat::to_string(s_.config.pls.regulariser), s_.config.pls.nonnegative};
  }
  std::string describe() const { return op_->describe(); }
  std::vector<std::size_t> image_shape() const { return s_.image_shape(); }
  std::vector<std::size_t> data_shape() const { return s_.data_shape(); }

 private:
  const float* device_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape) const {
    return cuda_backend_input(a, name, shape, backend_, device_, "oat: CUDA arrays");
  }
#ifdef TOMO_HAVE_CUDA
  oat::DeviceArrayModel& device_model() {
    if (!dev_) dev_ = std::make_unique<oat::DeviceArrayModel>(s_.geometry, options_, device_);
    return *dev_;
  }
  std::unique_ptr<oat::DeviceArrayModel> dev_;  // its own buffers, independent of op_
#endif
  OatSetup s_;
  std::string backend_;
  oat::ModelOptions options_;
  std::unique_ptr<oat::Model> op_;
  int device_ = 0;
};

class OatFbp {
 public:
  OatFbp(const std::string& scene, bool is_text, const std::vector<std::string>& sets, const std::string& backend,
         const std::string& interpolation)
      : s_(scene, is_text, sets) {
    auto& reg = BackendRegistry<oat::Fbp>::instance();
    backend_ = reg.resolve(backend);
    op_ = reg.create(backend_);
    oat::FbpOptions o = s_.config.fbp;
    o.interpolation = interpolation_of(interpolation);
    op_->configure(s_.geometry, o);
    device_ = runtime_options().cuda_device;
  }
  // CUDA u (Q, K) float32 → the image (z, y, x) float32 in `out`, on the GPU (cuda backend); the
  // deconvolution as reconstruct()'s, by DeviceArrayFbp::reconstruct_deconvolved.
  void reconstruct_device(const AnyArray& data, const OutArray& out, bool deconvolve, double cutoff_mhz) {
    const float* u = cuda_backend_input(data, "u", s_.data_shape(), backend_, device_, "oat: CUDA arrays");
    float* img = cuda_output(out, "out", s_.image_shape(), device_);
#ifdef TOMO_HAVE_CUDA
    nb::gil_scoped_release release;
    const double cutoff = cutoff_mhz < 0 ? s_.config.deconvolution_cutoff_mhz : cutoff_mhz;
    if (!dev_) dev_ = std::make_unique<oat::DeviceArrayFbp>(s_.geometry);
    if (deconvolve)
      dev_->reconstruct_deconvolved(u, cutoff, img);
    else
      dev_->reconstruct(u, img);
#else
    (void)u, (void)img, (void)deconvolve, (void)cutoff_mhz;
#endif
  }
  // deconvolve: the run's EIR deconvolution first (cutoff < 0: the scene's, 0: the default).
  DoubleArray reconstruct(const AnyArray& data, bool deconvolve, double cutoff_mhz) {
    const auto u = s_.data(data, "u");
    std::vector<double> img(s_.geometry.grid.count());
    {
      nb::gil_scoped_release release;
      const double cutoff = cutoff_mhz < 0 ? s_.config.deconvolution_cutoff_mhz : cutoff_mhz;
      const std::vector<double> p =
          deconvolve ? oat::deconvolve_eir(s_.geometry, u, cutoff) : std::vector<double>(u.begin(), u.end());
      op_->reconstruct(p, img);
    }
    return to_numpy(std::move(img), s_.image_shape());
  }
  std::string describe() const { return op_->describe(); }
  std::vector<std::size_t> image_shape() const { return s_.image_shape(); }

 private:
  OatSetup s_;
  std::string backend_;
  std::unique_ptr<oat::Fbp> op_;
  int device_ = 0;
#ifdef TOMO_HAVE_CUDA
  std::unique_ptr<oat::DeviceArrayFbp> dev_;  // its own table, independent of op_
#endif
};

// The scene's data as a run acquires them: (u (Q, K), phantom (z, y, x) or None, positions (Q, 3)).
nb::tuple acquire_py(const std::string& scene, bool is_text, const std::vector<std::string>& sets) {
  const oat::OatConfig c = oat::OatConfig::from_scene(load_scene(scene, is_text, sets));
  oat::Acquisition a;
  {
    nb::gil_scoped_release release;
    a = oat::acquire(c);
  }
  const auto& g = a.geometry;
  const auto& d = g.grid.dims;
  std::vector<double> pos;
  for (const auto& p : g.transducers) pos.insert(pos.end(), p.begin(), p.end());
  nb::object phantom = nb::none();
  if (!a.phantom.empty())
    phantom = nb::cast(to_numpy(std::move(a.phantom), {std::size_t(d[2]), std::size_t(d[1]), std::size_t(d[0])}));
  const std::size_t q = g.transducers.size();
  return nb::make_tuple(to_numpy(std::move(a.data), {q, std::size_t(g.time.samples)}), phantom, to_numpy(std::move(pos), {q, 3}));
}

}  // namespace

void bind_oat(nb::module_& m) {
  m.def("oat_acquire", &acquire_py, nb::arg("scene"), nb::arg("is_text"), nb::arg("sets"));
  nb::class_<OatModel>(m, "OatModel")
      .def(nb::init<const std::string&, bool, const std::vector<std::string>&, const std::string&, const std::string&>(),
           nb::arg("scene"), nb::arg("is_text"), nb::arg("sets"), nb::arg("backend"), nb::arg("interpolation"))
      .def("forward", &OatModel::forward, nb::arg("alpha"))
      .def("adjoint", &OatModel::adjoint, nb::arg("u"))
      .def("forward_device", &OatModel::forward_device, nb::arg("alpha"), nb::arg("out"))
      .def("adjoint_device", &OatModel::adjoint_device, nb::arg("u"), nb::arg("out"))
      .def("pls", &OatModel::pls, nb::arg("u"), nb::arg("iterations"), nb::arg("mu"), nb::arg("callback").none(),
           nb::arg("regulariser") = "", nb::arg("nonnegative").none() = nb::none())
      .def("describe", &OatModel::describe)
      .def_prop_ro("pls_options", &OatModel::pls_options)
      .def_prop_ro("pls_penalty", &OatModel::pls_penalty)
      .def_prop_ro("image_shape", &OatModel::image_shape)
      .def_prop_ro("data_shape", &OatModel::data_shape);
  nb::class_<OatFbp>(m, "OatFbp")
      .def(nb::init<const std::string&, bool, const std::vector<std::string>&, const std::string&, const std::string&>(),
           nb::arg("scene"), nb::arg("is_text"), nb::arg("sets"), nb::arg("backend"), nb::arg("interpolation"))
      .def("reconstruct", &OatFbp::reconstruct, nb::arg("u"), nb::arg("deconvolve"), nb::arg("cutoff_mhz"))
      .def("reconstruct_device", &OatFbp::reconstruct_device, nb::arg("u"), nb::arg("out"), nb::arg("deconvolve"),
           nb::arg("cutoff_mhz"))
      .def("describe", &OatFbp::describe)
      .def_prop_ro("image_shape", &OatFbp::image_shape);
}

}  // namespace tomo::py
