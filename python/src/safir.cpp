// tomoraster.safir: [Locans2017] §5's list-mode operator on NumPy arrays: events (N, 2) uint32
// crystal ids, images (z, y, x) float64; forward/back over the events, the sensitivity, ML-EM.
// With the cuda backend, CUDA events, images and values stay on the GPU: cuda/safir/device_arrays,
// an adapter over the same backend object, so GPU arrays run the kernels NumPy arrays run.
// The projector's operator calls and the module's bindings; its reconstruction layer is
// safir_reconstruct.cpp.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>

#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/core/sensitivity_mask.hpp"
#include "compute/pet/prior.hpp"
#include "compute/pet/scene_options.hpp"
#include "compute/safir/config.hpp"
#include "compute/safir/corrections.hpp"
#include "compute/safir/list_io.hpp"
#include "compute/safir/mlem.hpp"
#include "compute/safir/scanner.hpp"
#include "compute/safir/sensitivity.hpp"
#include "compute/safir/simulator.hpp"
#include "compute/safir/subsets.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/device.hpp"
#include "python/src/pet_layer.hpp"
#include "python/src/safir_projector.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/safir/device_arrays.hpp"
#endif

namespace tomo::py {

using safir::Event;
static_assert(sizeof(Event) == 8, "safir::Event is two packed uint32");

SafirProjector::SafirProjector(const std::string& scene, bool is_text, const std::vector<std::string>& sets, const std::string& backend)
    : scene_{scene, is_text, sets}, c_(safir::SafirConfig::from_scene(scene_.load())) {
  auto& reg = BackendRegistry<safir::ListModeOperator>::instance();
  backend_ = reg.resolve(backend);
  op_ = reg.create(backend_);
  op_->configure(c_.scanner, c_.box, c_.options);
  device_ = runtime_options().cuda_device;
}

void SafirProjector::set_events(const AnyArray& events) {
  const auto* p = host_input<std::uint32_t>(events, "events", {kAnySize, 2});
  const std::size_t n = events.shape(0);
  const std::uint32_t crystals = c_.scanner.crystal_count();
  for (std::size_t i = 0; i < 2 * n; ++i)
    if (p[i] >= crystals)
      throw nb::value_error(("events: crystal id " + std::to_string(p[i]) + " in row " + std::to_string(i / 2) +
                             " is not below the scanner's " + std::to_string(crystals) + " crystals")
                                .c_str());
  events_.assign(reinterpret_cast<const Event*>(p), reinterpret_cast<const Event*>(p) + n);
  host_events_ = true;
  nb::gil_scoped_release release;
  upload_events();
}

void SafirProjector::set_events_device(const AnyArray& events) {
  const std::uint32_t* p = device_events_input(events);
#ifdef TOMO_HAVE_CUDA
  {
    nb::gil_scoped_release release;
    device_projector().set_events(p, events.shape(0));
  }
#else
  (void)p;
#endif
  events_.clear();
  host_events_ = false;
}

DoubleArray SafirProjector::forward(const AnyArray& x) {
  const double* img = double_input(x, "x", image_shape());
  require_events();
  std::vector<double> y;
  {
    nb::gil_scoped_release release;
    ensure_host_events();
    op_->set_image({img, c_.box.count()});
    y = op_->forward();
  }
  return to_numpy(std::move(y), {event_count()});
}

DoubleArray SafirProjector::back(const AnyArray& v) {
  require_events();
  const double* p = double_input(v, "v", {event_count()});
  std::vector<double> b;
  {
    nb::gil_scoped_release release;
    ensure_host_events();
    b = op_->back({p, events_.size()});
  }
  return to_numpy(std::move(b), image_shape());
}

DoubleArray SafirProjector::sensitivity() {
  {
    nb::gil_scoped_release release;
    ensure_sensitivity();
  }
  return to_numpy(std::vector<double>(*s_), image_shape());
}

void SafirProjector::set_randoms_per_lor(double n) {
  if (!(n >= 0)) throw nb::value_error("randoms_per_lor: must be >= 0");
  op_->set_randoms_per_lor(n);
}

void SafirProjector::forward_device(const AnyArray& x, const OutArray& out) {
  require_events();
  const float* img = device_input(x, "x", image_shape());
  float* y = cuda_output(out, "out", {event_count()}, device_);
#ifdef TOMO_HAVE_CUDA
  nb::gil_scoped_release release;
  device_projector().forward(img, y);
#else
  (void)img, (void)y;
#endif
}

void SafirProjector::back_device(const AnyArray& v, const OutArray& out) {
  require_events();
  const float* val = device_input(v, "v", {event_count()});
  float* img = cuda_output(out, "out", image_shape(), device_);
#ifdef TOMO_HAVE_CUDA
  nb::gil_scoped_release release;
  device_projector().back(val, img);
#else
  (void)val, (void)img;
#endif
}

DoubleArray SafirProjector::mlem(int iterations, bool halve_events, nb::object callback) {
  require_events();
  safir::MlemOptions o = c_.mlem;
  if (iterations >= 0) o.iterations = iterations;
  o.halve_events = halve_events;
  std::vector<double> img;
  try {
    nb::gil_scoped_release release;
    ensure_host_events();
    ensure_sensitivity();
    safir::run_mlem(*op_, c_.box.count(), 0, events_.size(), o, [&](int t, std::size_t) {
      if (!callback.is_none()) {
        std::vector<double> now = op_->image();
        call_python([&] { return callback(t, to_numpy(std::move(now), image_shape())); });
      }
    });
  } catch (const PythonRaised&) {
    rethrow_python();
  } catch (const StopLoop&) {
  }
  img = op_->image();
  return to_numpy(std::move(img), image_shape());
}

void SafirProjector::mlem_device(int iterations, bool halve_events, nb::object callback, const OutArray& out) {
  require_events();
  require_cuda_backend("events");
  float* img = cuda_output(out, "out", image_shape(), device_);
  const int n_it = iterations >= 0 ? iterations : c_.mlem.iterations;
#ifdef TOMO_HAVE_CUDA
  const bool has_cb = !callback.is_none();
  try {
    nb::gil_scoped_release release;
    ensure_sensitivity();
    safir::DeviceArrayProjector& d = device_projector();
    d.fill(img, 1.0f);
    std::size_t active = event_count();  // code sample 4's halving, as run_mlem
    for (int t = 1; t <= n_it; ++t) {
      d.iterate(img, active);
      if (has_cb) call_python([&] { return callback(t); });
      if (halve_events && t < n_it && active > 1) active /= 2;
    }
  } catch (const PythonRaised&) {
    rethrow_python();
  } catch (const StopLoop&) {
  }
#else
  (void)img, (void)n_it, (void)halve_events, (void)callback;
#endif
}

std::size_t SafirProjector::event_count() const {
#ifdef TOMO_HAVE_CUDA
  if (!host_events_ && dev_) return dev_->events();
#endif
  return events_.size();
}

void SafirProjector::require_events() const {
  if (event_count() == 0) throw nb::value_error("safir.Projector: set_events(events) first");
}

void SafirProjector::ensure_host_events() {
  if (host_events_) return;
#ifdef TOMO_HAVE_CUDA
  if (dev_) events_ = dev_->events_to_host();
#endif
  host_events_ = true;
  upload_events();
}

void SafirProjector::require_cuda_backend(const std::string& name) const {
  tomo::py::require_cuda_backend(name, backend_, "safir: CUDA arrays");
}

const std::uint32_t* SafirProjector::device_events_input(const AnyArray& a) const {
  require_cuda_backend("events");
  if (!is_cuda(a)) throw nb::type_error("events: a CUDA array is needed here");
  if (a.device_id() != device_)
    throw nb::value_error(("events: on CUDA device " + std::to_string(a.device_id()) +
                           ", but the operator runs on CUDA device " + std::to_string(device_))
                              .c_str());
  if (a.dtype() != nb::dtype<std::uint32_t>()) throw nb::type_error("events: dtype must be uint32");
  const std::vector<std::size_t> got = shape_of(a);
  if (got.size() != 2 || got[1] != 2)
    throw nb::value_error(("events: shape " + shape_text(got) + ", expected " + shape_text({kAnySize, 2})).c_str());
  if (got[0] == 0) throw nb::value_error("events: the list is empty");
  require_c_contiguous(a, "events");
  return static_cast<const std::uint32_t*>(a.data());
}

void SafirProjector::restore_events() {
  nb::gil_scoped_release release;
  op_->set_randoms_per_lor(0.0);
  if (weighted_) {
    s_.reset();
    weighted_ = false;
    ensure_sensitivity();
  } else {
    op_->set_sensitivity(s_fov_);  // the subsets' s/S back to s
    upload_events();
  }
}

void SafirProjector::upload_events() {
  op_->set_events(events_);
  op_->set_window(0, events_.size());
}

void SafirProjector::ensure_sensitivity() {
  if (s_) return;
  // The sensitivity's pairs replace the backend's events for a while: keep a host copy first.
  if (!host_events_ && event_count() > 0) ensure_host_events();
  s_ = safir::compute_sensitivity(*op_, c_.scanner, c_.box, c_.sensitivity);  // uses the operator's events
  // As a run: voxels outside the scanner's field of view (safir.fov_mask) keep s = 0 in the
  // operator; sensitivity() still returns the unmasked image, as sensitivity.nii does.
  s_fov_ = *s_;
  if (c_.fov_mask) zero_outside<double>(s_fov_, outside_field_of_view(c_.box.grid(), safir::field_of_view(c_.scanner)));
  op_->set_sensitivity(s_fov_);
  if (host_events_ && !events_.empty()) upload_events();
}

const float* SafirProjector::device_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape) const {
  return cuda_backend_input(a, name, shape, backend_, device_, "safir: CUDA arrays");
}

#ifdef TOMO_HAVE_CUDA
safir::DeviceArrayProjector& SafirProjector::device_projector() {
  if (!dev_) dev_ = std::make_unique<safir::DeviceArrayProjector>(*op_, c_.box.count(), device_);
  return *dev_;
}
#endif

namespace {

// The scene's events as a run gets them (read from safir.events_file or simulated):
// (events (N, 2) uint32, time_s (N,) float64, delayed count).
nb::tuple events_py(const std::string& scene, bool is_text, const std::vector<std::string>& sets) {
  const safir::SafirConfig c = safir::SafirConfig::from_scene(load_scene(scene, is_text, sets));
  safir::ListMode lm;
  {
    nb::gil_scoped_release release;
    lm = c.events_file.empty() ? safir::simulate(c.scanner, c.phantom, c.simulation)
                               : safir::read_list_mode(c.events_file, c.scanner);
  }
  const std::size_t n = lm.events.size();
  std::vector<std::uint32_t> flat(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    flat[2 * i] = lm.events[i].a;
    flat[2 * i + 1] = lm.events[i].b;
  }
  std::vector<double> time_s(lm.time_s.begin(), lm.time_s.end());
  const std::size_t marks = time_s.size();  // 0: a file without time marks
  return nb::make_tuple(to_numpy(std::move(flat), {n, 2}), to_numpy(std::move(time_s), {marks}), lm.delayed);
}

}  // namespace

void bind_safir(nb::module_& m) {
  m.def("safir_events", &events_py, nb::arg("scene"), nb::arg("is_text"), nb::arg("sets"));
  nb::class_<SafirProjector>(m, "SafirProjector")
      .def(nb::init<const std::string&, bool, const std::vector<std::string>&, const std::string&>(), nb::arg("scene"),
           nb::arg("is_text"), nb::arg("sets"), nb::arg("backend"))
      .def("set_events", &SafirProjector::set_events, nb::arg("events"))
      .def("set_events_device", &SafirProjector::set_events_device, nb::arg("events"))
      .def("mlem_device", &SafirProjector::mlem_device, nb::arg("iterations"), nb::arg("halve_events"),
           nb::arg("callback").none(), nb::arg("out"))
      .def("forward", &SafirProjector::forward, nb::arg("x"))
      .def("back", &SafirProjector::back, nb::arg("v"))
      .def("forward_device", &SafirProjector::forward_device, nb::arg("x"), nb::arg("out"))
      .def("back_device", &SafirProjector::back_device, nb::arg("v"), nb::arg("out"))
      .def("sensitivity", &SafirProjector::sensitivity)
      .def("set_randoms_per_lor", &SafirProjector::set_randoms_per_lor, nb::arg("n"))
      .def("mlem", &SafirProjector::mlem, nb::arg("iterations"), nb::arg("halve_events"), nb::arg("callback").none())
      .def("reconstruct", &SafirProjector::reconstruct, nb::arg("keys"), nb::arg("events"), nb::arg("delayed"),
           nb::arg("x0").none(), nb::arg("callback").none())
      .def("describe", &SafirProjector::describe)
      .def_prop_ro("iterations", &SafirProjector::iterations)
      .def_prop_ro("event_count", &SafirProjector::event_count)
      .def_prop_ro("image_shape", &SafirProjector::image_shape);
}

}  // namespace tomo::py
