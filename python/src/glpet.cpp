// tomoraster.glpet: the projector of a glpet scene on NumPy arrays (any backend) and, for the
// cuda backend, on CUDA arrays in place (cuda/glpet/device_arrays.hpp).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <memory>

#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/sensitivity_mask.hpp"
#include "compute/glpet/projector.hpp"
#include "compute/glpet/config.hpp"
#include "compute/glpet/mlem.hpp"
#include "compute/glpet/run_terms.hpp"
#include "compute/pet/corrections.hpp"
#include "compute/pet/prior.hpp"
#include "compute/pet/scene_options.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/device.hpp"
#include "python/src/pet_layer.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/glpet/device_arrays.hpp"
#endif

namespace tomo::py {
namespace {

class GlpetProjector {
 public:
  GlpetProjector(const std::string& scene, bool is_text, const std::vector<std::string>& sets, const std::string& backend)
      : scene_{scene, is_text, sets} {
    const Scene s = load_scene(scene, is_text, sets);
    const glpet::GlpetScene g = glpet::read_glpet_scene(s);
    sys_ = g.system;
    auto& reg = BackendRegistry<glpet::Projector>::instance();
    backend_ = reg.resolve(backend);
    op_ = reg.create(backend_);
    op_->configure(sys_, g.projector);
    device_ = g.projector.device >= 0 ? g.projector.device : runtime_options().cuda_device;
    const auto& d = sys_.grid.dims;
    image_shape_ = {std::size_t(d[2]), std::size_t(d[1]), std::size_t(d[0])};
    threshold_ = g.sensitivity_threshold;
    outside_ = outside_field_of_view(sys_.grid, g.fov);
  }
  FloatArray forward(const AnyArray& x) {
    require_host(x, "x", backend_);
    const float* p = float_input(x, "x", image_shape_);
    std::vector<float> out;
    {
      nb::gil_scoped_release release;
      out = glpet::forward_host(*op_, {p, sys_.voxel_count()});
    }
    return to_numpy(std::move(out), {sys_.lor_count()});
  }
  FloatArray back(const AnyArray& y) {
    require_host(y, "y", backend_);
    const float* p = float_input(y, "y", {sys_.lor_count()});
    std::vector<float> out;
    {
      nb::gil_scoped_release release;
      out = glpet::back_host(*op_, {p, sys_.lor_count()});
    }
    return to_numpy(std::move(out), image_shape_);
  }
  // CUDA arrays in place: out = A x / out = Aᵀ y (out allocated by the caller on the same device).
  void forward_device(const AnyArray& x, const OutArray& out) {
    require_cuda_backend("x");
    const float* in = cuda_input(x, "x", image_shape_, device_);
    float* o = cuda_output(out, "out", {sys_.lor_count()}, device_);
    nb::gil_scoped_release release;
    device_path().forward(in, o);
  }
  void back_device(const AnyArray& y, const OutArray& out) {
    require_cuda_backend("y");
    const float* in = cuda_input(y, "y", {sys_.lor_count()}, device_);
    float* o = cuda_output(out, "out", image_shape_, device_);
    nb::gil_scoped_release release;
    device_path().back(in, o);
  }
  FloatArray sensitivity() { return to_numpy(glpet::sensitivity_host(*op_), image_shape_); }
  // The sensitivity ML-EM divides by, with the CLI's field of view (glpet::mask_and_start): 0 below
  // glpet.sensitivity_threshold × its maximum and, with glpet.fov_mask, outside the scanner's
  // cylinder, so those voxels stay 0.
  FloatArray mlem_sensitivity() {
    std::vector<float> s = glpet::sensitivity_host(*op_);
    mask(s);
    return to_numpy(std::move(s), image_shape_);
  }
  // 1 where a voxel belongs to the field of view the sensitivity cut leaves, else 0, for `s`.
  FloatArray field_of_view(const AnyArray& s) {
    require_host(s, "s", backend_);
    const float* p = float_input(s, "s", image_shape_);
    std::vector<float> m(p, p + sys_.voxel_count());
    mask(m);
    for (float& v : m) v = v > 0 ? 1.0f : 0.0f;
    return to_numpy(std::move(m), image_shape_);
  }
  // The reconstruction layer (docs/pet.md) as the CLI's run: the scene's [glpet] keys with
  // `keys` ("glpet.algorithm=...", the Python keywords) as overrides, read by the CLI's reader,
  // so defaults and refusals are the run's. y: the LOR vector; x0: a start image or None
  // (glpet.initial_image, or ones). Returns (image, [(iteration, image), ...] of save_iterations).
  nb::tuple reconstruct(const std::vector<std::string>& keys, const AnyArray& y, nb::object x0, nb::object callback) {
    require_host(y, "y", backend_);
    const glpet::GlpetScene g = glpet::read_glpet_scene(scene_.load(keys));
    const float* py = float_input(y, "y", {sys_.lor_count()});
    const std::span<const float> counts{py, sys_.lor_count()};
    std::vector<float> start;
    if (!x0.is_none()) {
      const AnyArray a = nb::cast<AnyArray>(x0);
      const float* p = float_input(a, "initial_image", image_shape_);
      start.assign(p, p + sys_.voxel_count());
    } else if (!g.pet.initial_image.empty()) {
      const auto v = pet::read_initial_image(g.pet.initial_image, g.system.grid.dims, "glpet.initial_image");
      start.assign(v.begin(), v.end());
    }
    auto& reg = BackendRegistry<glpet::Projector>::instance();
    // A μ-map changes A itself (σ_t on the grid): the reconstruction then has a projector of its own.
    std::unique_ptr<glpet::Projector> own;
    if (!g.corrections.attenuation_map.empty()) {
      own = reg.create(backend_);
      own->configure(g.system, g.projector);
    }
    glpet::Projector& op = own ? *own : *op_;
    const pet::ForwardTerms terms = glpet::lor_terms(g, counts);
    glpet::MlemOptions opt;
    opt.iterations = g.iterations;
    opt.recon = g.pet.recon;
    opt.prior_backend = pet::prior_backend_for(backend_);
    opt.system = &g.system;
    opt.make_projector = [&](const glpet::SystemModel& m) {
      auto p = reg.create(backend_);
      p->configure(m, g.projector);
      return p;
    };
    opt.sensitivity_threshold = g.sensitivity_threshold;
    opt.outside_fov = outside_field_of_view(g.system.grid, g.fov);
    if (!terms.empty()) opt.terms = &terms;
    SavedImages<float> saved;
    const bool has_cb = !callback.is_none();
    opt.on_iteration = [&](int it, const glpet::BackendBuffer& x) {
      const bool save = std::find(g.save_iterations.begin(), g.save_iterations.end(), it) != g.save_iterations.end();
      if (!save && !has_cb) return true;
      std::vector<float> hx = glpet::download(x);
      if (save) saved.emplace_back(it, hx);
      return !has_cb || pet_callback(callback, it, std::move(hx), image_shape_);
    };
    std::vector<float> x;
    try {
      nb::gil_scoped_release release;
      x = glpet::run_mlem(op, counts, start, opt).x;
    } catch (const PythonRaised&) {
      rethrow_python();
    }
    return pet_result(std::move(x), std::move(saved), image_shape_);
  }
  std::string describe() const { return op_->describe(); }
  std::string backend() const { return backend_; }
  int device() const { return device_; }
  std::vector<std::size_t> image_shape() const { return image_shape_; }
  std::size_t lor_count() const { return sys_.lor_count(); }
  // (pairs, N_a, N_t) when every module pair has one size (the CLI's 5-D counts layout applies),
  // else empty.
  std::vector<std::size_t> pair_shape() const {
    const auto& pairs = sys_.scanner.pairs;
    if (pairs.empty()) return {};
    for (const auto& p : pairs)
      if (p.n_a() != pairs[0].n_a() || p.n_t() != pairs[0].n_t()) return {};
    return {pairs.size(), std::size_t(pairs[0].n_a()), std::size_t(pairs[0].n_t())};
  }
  std::vector<double> voxel_mm() const { return {sys_.grid.voxel_mm.begin(), sys_.grid.voxel_mm.end()}; }

 private:
  void mask(std::vector<float>& s) const {
    const float floor = sensitivity_floor<float>(s, threshold_);
    for (float& v : s)
      if (v > 0 && v < floor) v = 0;
    zero_outside<float>(s, outside_);
  }
  void require_cuda_backend(const char* name) const {
    tomo::py::require_cuda_backend(name, backend_, "glpet: CUDA arrays");
  }
#ifdef TOMO_HAVE_CUDA
  glpet::DeviceProjection& device_path() {
    if (!dev_) dev_ = std::make_unique<glpet::DeviceProjection>(*op_, sys_.voxel_count(), sys_.lor_count(), device_);
    return *dev_;
  }
#else
  struct NoDevice {
    void forward(const float*, float*) {}
    void back(const float*, float*) {}
  };
  NoDevice device_path() { return {}; }
#endif
  SceneArgs scene_;
  glpet::SystemModel sys_;
  std::string backend_;
  std::unique_ptr<glpet::Projector> op_;
  int device_ = 0;
  std::vector<std::size_t> image_shape_;
  double threshold_ = kDefaultSensitivityThreshold;  // glpet.sensitivity_threshold
  std::vector<std::uint8_t> outside_;                // glpet.fov_mask: 1 outside the cylinder
#ifdef TOMO_HAVE_CUDA
  std::unique_ptr<glpet::DeviceProjection> dev_;  // uses *op_: declared after it, destroyed before it
#endif
};

}  // namespace

void bind_glpet(nb::module_& m) {
  nb::class_<GlpetProjector>(m, "GlpetProjector")
      .def(nb::init<const std::string&, bool, const std::vector<std::string>&, const std::string&>(), nb::arg("scene"),
           nb::arg("is_text"), nb::arg("sets"), nb::arg("backend"))
      .def("forward", &GlpetProjector::forward, nb::arg("x"))
      .def("back", &GlpetProjector::back, nb::arg("y"))
      .def("forward_device", &GlpetProjector::forward_device, nb::arg("x"), nb::arg("out"))
      .def("back_device", &GlpetProjector::back_device, nb::arg("y"), nb::arg("out"))
      .def("sensitivity", &GlpetProjector::sensitivity)
      .def("mlem_sensitivity", &GlpetProjector::mlem_sensitivity)
      .def("field_of_view", &GlpetProjector::field_of_view, nb::arg("s"))
      .def("reconstruct", &GlpetProjector::reconstruct, nb::arg("keys"), nb::arg("y"), nb::arg("x0").none(),
           nb::arg("callback").none())
      .def("describe", &GlpetProjector::describe)
      .def_prop_ro("backend_name", &GlpetProjector::backend)
      .def_prop_ro("device", &GlpetProjector::device)
      .def_prop_ro("image_shape", &GlpetProjector::image_shape)
      .def_prop_ro("lor_count", &GlpetProjector::lor_count)
      .def_prop_ro("voxel_mm", &GlpetProjector::voxel_mm)
      .def_prop_ro("pair_shape", &GlpetProjector::pair_shape);
}

}  // namespace tomo::py
