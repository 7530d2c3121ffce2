// The pieces of tomoraster._core: one bind_<problem>() per problem's operators (python/src/<p>.cpp),
// called from NB_MODULE in module.cpp, and the scene loading they share.
#pragma once
#include <nanobind/nanobind.h>

#include <functional>
#include <string>
#include <vector>

#include "compute/core/scene.hpp"

namespace tomo::py {

namespace nb = nanobind;

// A scene from a file path, an embedded scene name, or TOML text (the Python side turns dicts
// and keyword arguments into TOML and key=value overrides).
Scene load_scene(const std::string& scene, bool is_text, const std::vector<std::string>& sets);

// A projector's scene arguments, kept so that its reconstruction reads the scene again with
// that call's keys ("<problem>.algorithm=...", the Python keywords) after the kept overrides.
struct SceneArgs {
  std::string scene;
  bool is_text = false;
  std::vector<std::string> sets;
  Scene load(const std::vector<std::string>& keys = {}) const;
};

// Python callbacks inside C++ loops that run without the GIL. call_python(f) takes the GIL and
// runs f (which calls the user's function); a False result throws StopLoop, a Python exception
// (or a pending Ctrl-C) is put back into Python and PythonRaised unwinds the C++ loop; the binding catches both once
// it holds the GIL again (rethrow_python turns PythonRaised into the user's exception).
struct StopLoop {};
struct PythonRaised {};
template <class F>
void call_python(F&& f, bool may_stop = true) {
  nb::gil_scoped_acquire gil;
  // Ctrl-C in a notebook or a terminal: Python's handler runs here (the loop is on the main
  // thread), its KeyboardInterrupt unwinds the C++ loop like any exception of the callback.
  if (PyErr_CheckSignals() != 0) throw PythonRaised{};
  nb::object r;
  try {
    r = f();
  } catch (nb::python_error& e) {
    e.restore();
    throw PythonRaised{};
  }
  if (may_stop && r.is_valid() && r.ptr() == Py_False) throw StopLoop{};
}
[[noreturn]] inline void rethrow_python() { throw nb::python_error(); }

void bind_glpet(nb::module_& m);
void bind_glpet_lors(nb::module_& m);
void bind_pet_lines(nb::module_& m);
void bind_fdk(nb::module_& m);
void bind_strip(nb::module_& m);
void bind_oat(nb::module_& m);
void bind_safir(nb::module_& m);
void bind_musr(nb::module_& m);
void bind_validate(nb::module_& m);
void bind_interfile(nb::module_& m);

}  // namespace tomo::py
