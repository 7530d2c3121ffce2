// tomoraster._core: the C++ operators, scenes and runs for Python (nanobind). The Python
// package (python/tomoraster) wraps these in its modules; docs/python.md.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <memory>

#include "apps/tomoraster/scene_args.hpp"
#include "compute/core/error.hpp"
#include "compute/core/info.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/core/shutdown.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/glpet/projector.hpp"
#include "compute/glpet/scene_model.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/output_dir.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"

namespace tomo::py {

Scene load_scene(const std::string& scene, bool is_text, const std::vector<std::string>& sets) {
  if (!is_text) return cli::load_scene_arg(scene, sets);
  Scene s = Scene::load_string(scene, "<python dict>");
  for (const auto& kv : sets) s.apply_override(kv);
  return s;
}

namespace {

// `tomoraster run` for Python: returns (report JSON text, output folder).
std::pair<std::string, std::string> run(const std::string& scene_arg, bool is_text, const std::string& backend_arg,
                                        const std::string& output, const std::vector<std::string>& sets, bool force) {
  Scene scene = load_scene(scene_arg, is_text, sets);
  const ProblemInfo& problem = ProblemRegistry::instance().find(scene.problem());
  std::string backend = scene.get<std::string>("backend", "auto");
  if (!backend_arg.empty()) backend = backend_arg;
  OutputDir out(output, force);
  RunReport report;
  {
    nb::gil_scoped_release release;  // long work: other Python threads go on
    report = cli::run_into(problem, scene, backend, out);
  }
  return {report.json().dump(), out.final_dir().string()};
}

std::string info_json() {
  nlohmann::json j;
  j["version"] = TOMO_VERSION;
  for (const auto& s : info_sections()) j["sections"][s.title] = s.lines();
  for (const ProblemInfo* p : ProblemRegistry::instance().all()) {
    nlohmann::json b = nlohmann::json::object();
    if (p->backends)
      for (const auto& [name, a] : p->backends()) b[name] = {{"available", a.ok}, {"why", a.why}, {"software", a.software}};
    j["problems"][p->name] = {{"summary", p->summary}, {"backends", b}};
  }
  return j.dump();
}

// glpet's projector on a scene's scanner and grid.
class GlpetProjector {
 public:
  GlpetProjector(const std::string& scene, bool is_text, const std::vector<std::string>& sets, const std::string& backend) {
    const Scene s = load_scene(scene, is_text, sets);
    const glpet::GlpetScene g = glpet::read_glpet_scene(s);
    sys_ = g.system;
    auto& reg = BackendRegistry<glpet::Projector>::instance();
    op_ = reg.create(reg.resolve(backend));
    op_->configure(sys_, g.projector);
    const auto& d = sys_.grid.dims;
    image_shape_ = {std::size_t(d[2]), std::size_t(d[1]), std::size_t(d[0])};
  }
  FloatArray forward(const AnyArray& x) {
    const float* p = float_input(x, "x", image_shape_);
    std::vector<float> out;
    {
      nb::gil_scoped_release release;
      out = glpet::forward_host(*op_, {p, sys_.voxel_count()});
    }
    return to_numpy(std::move(out), {sys_.lor_count()});
  }
  FloatArray back(const AnyArray& y) {
    const float* p = float_input(y, "y", {sys_.lor_count()});
    std::vector<float> out;
    {
      nb::gil_scoped_release release;
      out = glpet::back_host(*op_, {p, sys_.lor_count()});
    }
    return to_numpy(std::move(out), image_shape_);
  }
  FloatArray sensitivity() { return to_numpy(glpet::sensitivity_host(*op_), image_shape_); }
  std::string describe() const { return op_->describe(); }
  std::vector<std::size_t> image_shape() const { return image_shape_; }
  std::size_t lor_count() const { return sys_.lor_count(); }
  std::vector<double> voxel_mm() const { return {sys_.grid.voxel_mm.begin(), sys_.grid.voxel_mm.end()}; }

 private:
  glpet::SystemModel sys_;
  std::unique_ptr<glpet::Projector> op_;
  std::vector<std::size_t> image_shape_;
};

// fdk's cone-beam back-projector (RabbitCT's update rule) on a user's projection stack.
class FdkBackprojector {
 public:
  FdkBackprojector(const std::string& backend, std::vector<int> voxels, std::vector<double> voxel_mm,
                   std::vector<double> origin_mm, const std::string& interpolation) {
    if (voxels.size() != 3 || voxel_mm.size() != 3 || origin_mm.size() != 3)
      throw nb::value_error("voxels, voxel_mm and origin_mm take three values each (x, y, z)");
    for (int a = 0; a < 3; ++a) {
      if (voxels[a] < 1 || !(voxel_mm[a] > 0)) throw nb::value_error("voxels must be >= 1 and voxel_mm > 0");
      grid_.dims[a] = voxels[a];
      grid_.voxel_mm[a] = voxel_mm[a];
      grid_.origin_mm[a] = origin_mm[a];
    }
    auto& reg = BackendRegistry<fdk::ConeBeamBackprojector>::instance();
    op_ = reg.create(reg.resolve(backend));
    fdk::BackprojectorOptions o;
    if (interpolation == "exact") o.interpolation = fdk::Interpolation::exact;
    else if (interpolation != "hardware") throw nb::value_error("interpolation must be 'hardware' or 'exact'");
    op_->configure(o);
  }
  // projections (N, rows, cols) float32, matrices (N, 3, 4) float64: f += Σ_n bilinear(I_n)/w_n².
  FloatArray backproject(const AnyArray& projections, const AnyArray& matrices) {
    if (projections.ndim() != 3) throw nb::value_error("projections: shape (N, rows, cols) expected");
    const std::size_t n = projections.shape(0), rows = projections.shape(1), cols = projections.shape(2);
    const float* pix = float_input(projections, "projections", {n, rows, cols});
    const double* m = double_input(matrices, "matrices", {n, 3, 4});
    std::vector<fdk::Mat34> mats(n);
    for (std::size_t i = 0; i < n; ++i)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) mats[i].at(r, c) = m[i * 12 + r * 4 + c];
    VolumeF v;
    {
      nb::gil_scoped_release release;
      const fdk::ProjectionView all{int(cols), int(rows), int(n), mats.data(), pix};
      op_->reset(grid_);
      op_->prepare(all);
      op_->backproject(all);
      v = op_->volume();
    }
    const auto& d = grid_.dims;
    return to_numpy(std::move(v.data), {std::size_t(d[2]), std::size_t(d[1]), std::size_t(d[0])});
  }
  std::string describe() const { return op_->describe(); }

 private:
  Grid3 grid_;
  std::unique_ptr<fdk::ConeBeamBackprojector> op_;
};

nb::tuple read_nifti_py(const std::string& path) {
  VolumeF v = read_nifti(path);
  const auto& g = v.grid;
  std::vector<double> vox(g.voxel_mm.begin(), g.voxel_mm.end()), org(g.origin_mm.begin(), g.origin_mm.end());
  return nb::make_tuple(to_numpy(std::move(v.data), {std::size_t(g.dims[2]), std::size_t(g.dims[1]), std::size_t(g.dims[0])}),
                        vox, org);
}

}  // namespace
}  // namespace tomo::py

NB_MODULE(_core, m) {
  using namespace tomo::py;
  namespace nb = nanobind;
  // tomoraster's errors as Python's: bad input → ValueError, missing device feature → RuntimeError
  // subclass UnavailableError (the CLI's exit 3), others RuntimeError.
  static nb::object unavailable = nb::exception<tomo::UnavailableError>(m, "UnavailableError", PyExc_RuntimeError);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const tomo::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  m.def("version", [] { return std::string(TOMO_VERSION); });
  m.def("info_json", &info_json);
  m.def("run", &run, nb::arg("scene"), nb::arg("is_text"), nb::arg("backend"), nb::arg("output"), nb::arg("sets"),
        nb::arg("force"));
  m.def("read_nifti", &read_nifti_py, nb::arg("path"));
  m.def("set_quiet", [](bool quiet) {
    tomo::runtime_options().progress = !quiet;
    tomo::set_log_level(quiet ? tomo::LogLevel::Warn : tomo::LogLevel::Info);
  });
  m.def("shutdown", &tomo::run_shutdown_hooks);
  nb::class_<GlpetProjector>(m, "GlpetProjector")
      .def(nb::init<const std::string&, bool, const std::vector<std::string>&, const std::string&>(), nb::arg("scene"),
           nb::arg("is_text"), nb::arg("sets"), nb::arg("backend"))
      .def("forward", &GlpetProjector::forward, nb::arg("x"))
      .def("back", &GlpetProjector::back, nb::arg("y"))
      .def("sensitivity", &GlpetProjector::sensitivity)
      .def("describe", &GlpetProjector::describe)
      .def_prop_ro("image_shape", &GlpetProjector::image_shape)
      .def_prop_ro("lor_count", &GlpetProjector::lor_count)
      .def_prop_ro("voxel_mm", &GlpetProjector::voxel_mm);
  nb::class_<FdkBackprojector>(m, "FdkBackprojector")
      .def(nb::init<const std::string&, std::vector<int>, std::vector<double>, std::vector<double>, const std::string&>(),
           nb::arg("backend"), nb::arg("voxels"), nb::arg("voxel_mm"), nb::arg("origin_mm"), nb::arg("interpolation"))
      .def("backproject", &FdkBackprojector::backproject, nb::arg("projections"), nb::arg("matrices"))
      .def("describe", &FdkBackprojector::describe);
  bind_strip(m);
  bind_oat(m);
  bind_safir(m);
  bind_musr(m);
}
