// tomoraster.strip: [Bialas2015]'s list-mode operator on NumPy event arrays (N, 3) float32
// (z̃u, z̃d, Δl̃ in mm): the chosen backend's forward/back of eq. (7) (double on cpu, float on
// the GPU backends) and its ML-EM step, eq. (5); with the cuda backend, CUDA arrays run on the
// GPU in place through the same backend object (cuda/strip/device_arrays.hpp). The projector's
// operator calls and the module's bindings; its reconstruction layer is strip_reconstruct.cpp.
#include <nanobind/stl/function.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <span>

#include "compute/core/registry.hpp"
#include "compute/pet/attenuation.hpp"
#include "compute/pet/corrections.hpp"
#include "compute/pet/prior.hpp"
#include "compute/pet/scene_options.hpp"
#include "compute/strip/attenuation.hpp"
#include "compute/strip/background.hpp"
#include "compute/strip/config.hpp"
#include "compute/strip/event_io.hpp"
#include "compute/strip/mlem.hpp"
#include "compute/strip/normalisation.hpp"
#include "compute/strip/run_terms.hpp"
#include "compute/strip/subsets.hpp"
#include "compute/core/runtime_options.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/device.hpp"
#include "python/src/pet_layer.hpp"
#include "python/src/strip_projector.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/strip/device_arrays.hpp"
#endif

namespace tomo::py {

using strip::Event;

namespace {

std::span<const Event> events_input(const AnyArray& a) {
  const float* p = host_input<float>(a, "events", {kAnySize, 3});
  return {reinterpret_cast<const Event*>(p), a.shape(0)};
}

}  // namespace

StripProjector::StripProjector(const std::string& scene, bool is_text, const std::vector<std::string>& sets, const std::string& backend)
    : scene_{scene, is_text, sets} {
  c_ = strip::StripConfig::from_scene(scene_.load());
  auto& reg = BackendRegistry<strip::ListModeProjector>::instance();
  backend_ = reg.resolve(backend);
  op_ = reg.create(backend_);
  op_->configure(c_.geometry, c_.resolution, c_.options);
  device_ = runtime_options().cuda_device;
}

DoubleArray StripProjector::forward(const AnyArray& x, const AnyArray& events) {
  const double* img = double_input(x, "x", image_shape());
  const auto ev = events_input(events);
  std::vector<double> y;
  {
    nb::gil_scoped_release release;
    use_events(ev);
    y = op_->forward({img, c_.geometry.pixel_count()});
  }
  return to_numpy(std::move(y), {ev.size()});
}

DoubleArray StripProjector::back(const AnyArray& w, const AnyArray& events) {
  const auto ev = events_input(events);
  const double* v = double_input(w, "w", {ev.size()});
  std::vector<double> b;
  {
    nb::gil_scoped_release release;
    use_events(ev);
    b = op_->back({v, ev.size()});
  }
  return to_numpy(std::move(b), image_shape());
}

void StripProjector::set_events(const AnyArray& events) {
  const auto ev = events_input(events);
  if (ev.empty()) throw nb::value_error("events: the list is empty");
  nb::gil_scoped_release release;
  events_.assign(ev.begin(), ev.end());
  host_copy_ = true;
  op_->set_events(ev);
  op_current_ = true;
  event_count_ = ev.size();
}

DoubleArray StripProjector::iterate(const AnyArray& rho_prime) {
  const double* p = double_input(rho_prime, "rho_prime", image_shape());
  require_events();
  std::vector<double> out;
  {
    nb::gil_scoped_release release;
    ensure_current_events();
    op_->set_image({p, c_.geometry.pixel_count()});
    op_->iterate();
    out = op_->image();
  }
  return to_numpy(std::move(out), image_shape());
}

std::pair<DoubleArray, DoubleArray> StripProjector::mlem(int iterations, nb::object callback) {
  if (iterations < 0) throw nb::value_error("iterations: must be >= 0");
  require_events();
  const std::vector<double> s = strip::sensitivity_image(c_.geometry);
  std::vector<double> last;
  const bool has_cb = !callback.is_none();
  try {
    nb::gil_scoped_release release;
    ensure_current_events();
    last = strip::run_mlem(*op_, c_.geometry.pixel_count(), iterations, [&](int t, const std::vector<double>& rp) {
      last = rp;
      if (has_cb) call_python([&] { return callback(t, rho_of(rp, s)); });
    });
  } catch (const PythonRaised&) {
    rethrow_python();
  } catch (const StopLoop&) {
  }
  std::vector<double> rho = strip::rho_from_rho_prime(last, s, c_.sensitivity_threshold, outside_fov());
  return {to_numpy(std::move(rho), image_shape()), to_numpy(std::move(last), image_shape())};
}

void StripProjector::forward_device(const AnyArray& x, const AnyArray& events, const OutArray& out) {
  require_device_backend(is_cuda(x) ? "x" : "events");
  const float* ev = cuda_input(events, "events", events_shape(events), device_);
  const float* img = cuda_input(x, "x", image_shape(), device_);
  float* y = cuda_output(out, "out", {events.shape(0)}, device_);
#ifdef TOMO_HAVE_CUDA
  nb::gil_scoped_release release;
  device_path().forward(img, ev, events.shape(0), y);
#else
  (void)ev, (void)img, (void)y;
#endif
}

void StripProjector::back_device(const AnyArray& w, const AnyArray& events, const OutArray& out) {
  require_device_backend(is_cuda(w) ? "w" : "events");
  const float* ev = cuda_input(events, "events", events_shape(events), device_);
  const float* v = cuda_input(w, "w", {events.shape(0)}, device_);
  float* b = cuda_output(out, "out", image_shape(), device_);
#ifdef TOMO_HAVE_CUDA
  nb::gil_scoped_release release;
  device_path().back(v, ev, events.shape(0), b);
#else
  (void)ev, (void)v, (void)b;
#endif
}

void StripProjector::set_events_device(const AnyArray& events) {
  require_device_backend("events");
  const float* ev = cuda_input(events, "events", events_shape(events), device_);
  if (events.shape(0) == 0) throw nb::value_error("events: the list is empty");
#ifdef TOMO_HAVE_CUDA
  nb::gil_scoped_release release;
  device_path().set_events(ev, events.shape(0));
#else
  (void)ev;
#endif
  host_copy_ = false;
  op_current_ = true;
  event_count_ = events.shape(0);
}

void StripProjector::iterate_device(const AnyArray& rho_prime, const OutArray& out) {
  require_device_backend("rho_prime");
  const float* in = cuda_input(rho_prime, "rho_prime", image_shape(), device_);
  float* o = cuda_output(out, "out", image_shape(), device_);
  require_events();
#ifdef TOMO_HAVE_CUDA
  nb::gil_scoped_release release;
  ensure_current_events();
  device_path().iterate(in, o);
#else
  (void)in, (void)o;
#endif
}

void StripProjector::mlem_device(int iterations, nb::object callback, const OutArray& rho, const OutArray& rho_prime) {
  if (iterations < 0) throw nb::value_error("iterations: must be >= 0");
  require_device_backend("events");
  float* r = cuda_output(rho, "rho", image_shape(), device_);
  float* rp = cuda_output(rho_prime, "rho_prime", image_shape(), device_);
  require_events();
#ifdef TOMO_HAVE_CUDA
  const bool has_cb = !callback.is_none();
  try {
    nb::gil_scoped_release release;
    ensure_current_events();
    strip::DeviceArrayProjector& d = device_path();
    d.fill_ones(rp);
    for (int t = 1; t <= iterations; ++t) {
      d.iterate(rp, rp);
      if (has_cb) {
        d.rho(rp, r);
        call_python([&] { return callback(t); });
      }
    }
    d.rho(rp, r);
  } catch (const PythonRaised&) {
    rethrow_python();
  } catch (const StopLoop&) {
  }
#else
  (void)r, (void)rp, (void)callback;
#endif
}

std::vector<std::uint8_t> StripProjector::outside_fov() const {
  return c_.fov_mask ? strip::outside_field_of_view(c_.geometry) : std::vector<std::uint8_t>{};
}

DoubleArray StripProjector::rho_of(const std::vector<double>& rp, const std::vector<double>& s) const {
  return to_numpy(strip::rho_from_rho_prime(rp, s, c_.sensitivity_threshold, outside_fov()), image_shape());
}

void StripProjector::require_events() const {
  if (event_count_ == 0) throw nb::value_error("strip.Projector: set_events(events) first");
}

void StripProjector::require_device_backend(const char* name) const {
  require_cuda_backend(name, backend_, "strip: CUDA arrays");
}

void StripProjector::use_events(std::span<const Event> ev) {
  if (op_current_ && !host_copy_) {
#ifdef TOMO_HAVE_CUDA
    events_ = device_path().events_to_host();
#endif
    host_copy_ = true;
  }
  op_->set_events(ev);
  op_current_ = false;
}

void StripProjector::ensure_current_events() {
  if (op_current_) return;
  op_->set_events(events_);
  op_current_ = true;
}

#ifdef TOMO_HAVE_CUDA
strip::DeviceArrayProjector& StripProjector::device_path() {
  if (!dev_) dev_ = std::make_unique<strip::DeviceArrayProjector>(*op_, c_.geometry, c_.sensitivity_threshold, outside_fov(), device_);
  return *dev_;
}
#endif

namespace {

nb::ndarray<nb::numpy, float> read_events_py(const std::string& path) {
  std::vector<Event> ev = strip::read_events(path);
  std::vector<float> flat(ev.size() * 3);
  for (std::size_t i = 0; i < ev.size(); ++i) {
    flat[3 * i] = ev[i].z_u;
    flat[3 * i + 1] = ev[i].z_d;
    flat[3 * i + 2] = ev[i].dl;
  }
  return to_numpy(std::move(flat), {ev.size(), 3});
}

}  // namespace

void bind_strip(nb::module_& m) {
  m.def("strip_read_events", &read_events_py, nb::arg("path"));
  nb::class_<StripProjector>(m, "StripProjector")
      .def(nb::init<const std::string&, bool, const std::vector<std::string>&, const std::string&>(), nb::arg("scene"),
           nb::arg("is_text"), nb::arg("sets"), nb::arg("backend"))
      .def("forward", &StripProjector::forward, nb::arg("x"), nb::arg("events"))
      .def("back", &StripProjector::back, nb::arg("w"), nb::arg("events"))
      .def("set_events", &StripProjector::set_events, nb::arg("events"))
      .def("iterate", &StripProjector::iterate, nb::arg("rho_prime"))
      .def("mlem", &StripProjector::mlem, nb::arg("iterations"), nb::arg("callback").none())
      .def("forward_device", &StripProjector::forward_device, nb::arg("x"), nb::arg("events"), nb::arg("out"))
      .def("back_device", &StripProjector::back_device, nb::arg("w"), nb::arg("events"), nb::arg("out"))
      .def("set_events_device", &StripProjector::set_events_device, nb::arg("events"))
      .def("iterate_device", &StripProjector::iterate_device, nb::arg("rho_prime"), nb::arg("out"))
      .def("mlem_device", &StripProjector::mlem_device, nb::arg("iterations"), nb::arg("callback").none(),
           nb::arg("rho"), nb::arg("rho_prime"))
      .def("reconstruct", &StripProjector::reconstruct, nb::arg("keys"), nb::arg("events"), nb::arg("x0").none(),
           nb::arg("callback").none())
      .def("sensitivity", &StripProjector::sensitivity)
      .def("describe", &StripProjector::describe)
      .def_prop_ro("backend_name", &StripProjector::backend)
      .def_prop_ro("device", &StripProjector::device)
      .def_prop_ro("iterations", &StripProjector::iterations)
      .def_prop_ro("image_shape", &StripProjector::image_shape)
      .def_prop_ro("pixel_mm", &StripProjector::pixel_mm);
}

}  // namespace tomo::py
