// tomoraster.strip: [Bialas2015]'s list-mode operator on NumPy event arrays (N, 3) float32
// (z̃u, z̃d, Δl̃ in mm): the chosen backend's forward/back of eq. (7) (double on cpu, float on
// the GPU backends) and its ML-EM step, eq. (5); with the cuda backend, CUDA arrays run on the
// GPU in place through the same backend object (cuda/strip/device_arrays.hpp).
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
#ifdef TOMO_HAVE_CUDA
#include "cuda/strip/device_arrays.hpp"
#endif

namespace tomo::py {
namespace {

using strip::Event;

std::span<const Event> events_input(const AnyArray& a) {
  const float* p = host_input<float>(a, "events", {kAnySize, 3});
  return {reinterpret_cast<const Event*>(p), a.shape(0)};
}

class StripProjector {
 public:
  StripProjector(const std::string& scene, bool is_text, const std::vector<std::string>& sets, const std::string& backend)
      : scene_(scene), is_text_(is_text), sets_(sets) {
    c_ = strip::StripConfig::from_scene(load_scene(scene, is_text, sets));
    auto& reg = BackendRegistry<strip::ListModeProjector>::instance();
    backend_ = reg.resolve(backend);
    op_ = reg.create(backend_);
    op_->configure(c_.geometry, c_.resolution, c_.options);
    device_ = runtime_options().cuda_device;
  }

  std::vector<std::size_t> image_shape() const { return {std::size_t(c_.geometry.n_y), std::size_t(c_.geometry.n_z)}; }

  // y_j = Σ_i P(ẽ_j|i) x_i over the 3σ ellipse of each event (the backend's forward).
  DoubleArray forward(const AnyArray& x, const AnyArray& events) {
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

  // b_i = Σ_j P(ẽ_j|i) w_j, the transpose of forward() (the backend's back).
  DoubleArray back(const AnyArray& w, const AnyArray& events) {
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

  void set_events(const AnyArray& events) {
    const auto ev = events_input(events);
    if (ev.empty()) throw nb::value_error("events: the list is empty");
    nb::gil_scoped_release release;
    events_.assign(ev.begin(), ev.end());
    host_copy_ = true;
    op_->set_events(ev);
    op_current_ = true;
    event_count_ = ev.size();
  }

  // One step of eq. (5) on the backend from ρ' = rho_prime (events from set_events).
  DoubleArray iterate(const AnyArray& rho_prime) {
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

  // run_mlem from ρ' = 1: (ρ, ρ') after `iterations` (or where callback(t, ρ) returned False).
  std::pair<DoubleArray, DoubleArray> mlem(int iterations, nb::object callback) {
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

  // The reconstruction layer (docs/pet.md) over ρ', as the CLI's run: the scene's [strip] keys
  // with `keys` ("strip.algorithm=...", the Python keywords) as overrides, read by the CLI's
  // reader. x0: a start ρ' or None (strip.initial_image, or the flat start). Returns
  // (ρ, ρ', [(iteration, ρ'), ...] of save_iterations).
  nb::tuple reconstruct(const std::vector<std::string>& keys, const AnyArray& events, nb::object x0, nb::object callback) {
    std::vector<std::string> all = sets_;
    all.insert(all.end(), keys.begin(), keys.end());
    const strip::StripConfig c = strip::StripConfig::from_scene(load_scene(scene_, is_text_, all));
    const strip::StripGeometry& g = c_.geometry;
    std::vector<double> given;
    if (!x0.is_none()) {
      const AnyArray a = nb::cast<AnyArray>(x0);
      const double* p = double_input(a, "initial_image", image_shape());
      given.assign(p, p + g.pixel_count());
    }
    set_events(events);
    std::optional<pet::AttenuationMap> mu;
    if (!c.corrections.attenuation_map.empty())
      mu = pet::AttenuationMap::read(c.corrections.attenuation_map, "strip.attenuation_map");
    std::optional<strip::StripEfficiency> efficiency;
    if (!c.corrections.normalisation.empty())
      efficiency = strip::StripEfficiency::from_npy(c.corrections.normalisation, g.L, "strip.normalisation");
    const std::vector<double> s = strip::sensitivity_image(g);
    const pet::ForwardTerms terms = strip::background_terms(c, events_, s, mu ? &*mu : nullptr, efficiency ? &*efficiency : nullptr);
    const pet::ReconOptions& recon = c.pet.recon;
    // The start: the caller's ρ', strip.initial_image, or flat (at the trues' level with additive terms).
    const double level =
        terms.empty() ? 1.0
                      : pet::flat_start_level(double(events_.size()),
                                              (c.corrections.randoms.fraction + c.corrections.scatter.fraction) *
                                                  double(events_.size()),
                                              double(g.pixel_count()));
    const std::vector<double> start =
        !given.empty() ? given
        : c.pet.initial_image.empty()
            ? std::vector<double>(g.pixel_count(), level)
            : pet::read_initial_image(c.pet.initial_image, g.grid3().dims, "strip.initial_image");
    SavedImages<double> saved;
    const bool has_cb = !callback.is_none();
    std::vector<double> rho_prime = start;
    pet::SubsetPrimitives* data = nullptr;
    const auto after_iteration = [&](int t) {
      rho_prime = data->image();
      if (std::find(c.save_iterations.begin(), c.save_iterations.end(), t) != c.save_iterations.end())
        saved.emplace_back(t, rho_prime);
      return !has_cb || pet_callback(callback, t, strip::rho_from_rho_prime(rho_prime, s, c.sensitivity_threshold, outside_fov()),
                                     image_shape());
    };
    try {
      nb::gil_scoped_release release;
      auto& reg = BackendRegistry<strip::ListModeProjector>::instance();
      const auto more = [&] {
        auto p = reg.create(backend_);
        p->configure(g, c_.resolution, c_.options);
        return p;
      };
      ensure_current_events();
      strip::EventSubsets subsets(
          *op_, events_, recon.subsets, g.pixel_count(),
          mu || efficiency ? strip::weighted_acceptance(g,
                                                        [&](double z_u, double z_d) {
                                                          return (mu ? strip::survival(*mu, g.R, z_u, z_d) : 1.0) *
                                                                 (efficiency ? efficiency->pair(z_u, z_d) : 1.0);
                                                        })
                           : std::vector<double>{},
          more, terms);
      subsets.set_image(start);
      data = &subsets;
      std::unique_ptr<pet::PriorOperator> prior;
      if (pet::uses_prior(recon.algorithm)) {
        const Grid3 g3 = g.grid3();
        prior = pet::make_prior(backend_, {g3.dims, g3.voxel_mm}, recon.prior, std::vector<double>(g.pixel_count(), 1.0));
      }
      pet::reconstruct(subsets, recon, prior.get(), {.after_subset = {}, .after_iteration = after_iteration});
      if (recon.iterations == 0) rho_prime = subsets.image();
    } catch (const PythonRaised&) {
      op_current_ = false;
      rethrow_python();
    }
    op_current_ = recon.subsets <= 1;  // with subsets the backend holds subset 0's events
    std::vector<double> rho = strip::rho_from_rho_prime(rho_prime, s, c.sensitivity_threshold, outside_fov());
    nb::list list;
    for (auto& [t, x] : saved) list.append(nb::make_tuple(t, to_numpy(std::move(x), image_shape())));
    return nb::make_tuple(to_numpy(std::move(rho), image_shape()), to_numpy(std::move(rho_prime), image_shape()), list);
  }

  DoubleArray sensitivity() const { return to_numpy(strip::sensitivity_image(c_.geometry), image_shape()); }
  std::string describe() const { return op_->describe(); }
  std::string backend() const { return backend_; }
  int device() const { return device_; }
  // CUDA arrays in place (cuda backend; float32): y (N,) = A x for x (n_y, n_z) and events (N, 3)
  // on the GPU, b (n_y, n_z) = Aᵀ w; set_events of a CUDA list (copied device-to-device); one EM
  // step ρ' → out (out may be rho_prime); ML-EM from ρ' = 1 into the caller's rho and rho_prime.
  void forward_device(const AnyArray& x, const AnyArray& events, const OutArray& out) {
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
  void back_device(const AnyArray& w, const AnyArray& events, const OutArray& out) {
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
  void set_events_device(const AnyArray& events) {
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
  void iterate_device(const AnyArray& rho_prime, const OutArray& out) {
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
  // callback(t) after iteration t with rho written (the Python side passes rho on); False stops.
  void mlem_device(int iterations, nb::object callback, const OutArray& rho, const OutArray& rho_prime) {
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

  int iterations() const { return c_.iterations; }
  std::vector<double> pixel_mm() const { return {c_.geometry.pixel_y, c_.geometry.pixel_z}; }

 private:
  // Pixels outside the strips' field of view (strip.fov_mask), held at 0 as a run does.
  std::vector<std::uint8_t> outside_fov() const {
    return c_.fov_mask ? strip::outside_field_of_view(c_.geometry) : std::vector<std::uint8_t>{};
  }
  DoubleArray rho_of(const std::vector<double>& rp, const std::vector<double>& s) const {
    return to_numpy(strip::rho_from_rho_prime(rp, s, c_.sensitivity_threshold, outside_fov()), image_shape());
  }
  void require_events() const {
    if (event_count_ == 0) throw nb::value_error("strip.Projector: set_events(events) first");
  }
  static std::vector<std::size_t> events_shape(const AnyArray& a) { return {a.ndim() ? a.shape(0) : 0, 3}; }
  void require_device_backend(const char* name) const {
    require_cuda_backend(name, backend_, "strip: CUDA arrays");
  }
  // forward/back of NumPy arrays put their events into the backend: the list of set_events is
  // kept on the host first (a download for a CUDA list) and put back before the next EM step.
  void use_events(std::span<const Event> ev) {
    if (op_current_ && !host_copy_) {
#ifdef TOMO_HAVE_CUDA
      events_ = device_path().events_to_host();
#endif
      host_copy_ = true;
    }
    op_->set_events(ev);
    op_current_ = false;
  }
  void ensure_current_events() {
    if (op_current_) return;
    op_->set_events(events_);
    op_current_ = true;
  }
#ifdef TOMO_HAVE_CUDA
  strip::DeviceArrayProjector& device_path() {
    if (!dev_) dev_ = std::make_unique<strip::DeviceArrayProjector>(*op_, c_.geometry, c_.sensitivity_threshold, outside_fov(), device_);
    return *dev_;
  }
#endif

  std::string scene_;  // the scene's arguments, read again with a reconstruction's keys
  bool is_text_ = false;
  std::vector<std::string> sets_;
  strip::StripConfig c_;
  std::unique_ptr<strip::ListModeProjector> op_;
  std::vector<Event> events_;  // the list of set_events, when host_copy_
  bool host_copy_ = false;     // events_ holds it (else only the backend does: a CUDA list)
  bool op_current_ = false;    // the backend holds it (not forward/back's events)
  std::size_t event_count_ = 0;
  std::string backend_;
  int device_ = 0;
#ifdef TOMO_HAVE_CUDA
  std::unique_ptr<strip::DeviceArrayProjector> dev_;  // over op_ (cuda backend only)
#endif
};

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
