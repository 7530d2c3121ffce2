// tomoraster._core: the C++ operators, scenes and runs for Python (nanobind). The Python
// package (python/tomoraster) wraps these in its modules; docs/python.md.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>

#include "apps/tomoraster/scene_args.hpp"
#include "compute/core/error.hpp"
#include "compute/core/info.hpp"
#include "compute/core/interrupt.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/core/shutdown.hpp"
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

Scene SceneArgs::load(const std::vector<std::string>& keys) const {
  std::vector<std::string> all = sets;
  all.insert(all.end(), keys.begin(), keys.end());
  return load_scene(scene, is_text, all);
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

// A 3-D file as (z, y, x); a 4-D one (safir's frames) as (t, z, y, x), with frame_s in seconds.
nb::tuple read_nifti_py(const std::string& path) {
  NiftiSeries v = read_nifti_series(path);
  const auto& g = v.grid;
  std::vector<double> vox(g.voxel_mm.begin(), g.voxel_mm.end()), org(g.origin_mm.begin(), g.origin_mm.end());
  std::vector<std::size_t> shape{std::size_t(g.dims[2]), std::size_t(g.dims[1]), std::size_t(g.dims[0])};
  if (v.frames > 1) shape.insert(shape.begin(), std::size_t(v.frames));
  return nb::make_tuple(to_numpy(std::move(v.data), shape), vox, org, v.frame_s);
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
  m.def("request_interrupt", &tomo::request_interrupt, nb::arg("signal"));
  m.def("clear_interrupt", &tomo::clear_interrupt);
  m.def("run", &run, nb::arg("scene"), nb::arg("is_text"), nb::arg("backend"), nb::arg("output"), nb::arg("sets"),
        nb::arg("force"));
  m.def("read_nifti", &read_nifti_py, nb::arg("path"));
  m.def("set_quiet", [](bool quiet) {
    tomo::runtime_options().progress = !quiet;
    tomo::set_log_level(quiet ? tomo::LogLevel::Warn : tomo::LogLevel::Info);
  });
  m.def("shutdown", &tomo::run_shutdown_hooks);
  m.def("set_cuda_device", [](int device) {
    if (device < 0) throw nb::value_error("device: must be >= 0");
    tomo::runtime_options().cuda_device = device;
  });
  bind_glpet(m);
  bind_glpet_lors(m);
  bind_pet_lines(m);
  bind_fdk(m);
  bind_strip(m);
  bind_oat(m);
  bind_safir(m);
  bind_musr(m);
  bind_validate(m);
  bind_interfile(m);
}
