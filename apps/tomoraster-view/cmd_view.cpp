// `tomoraster view` in tomoraster-view: the options of view_args.hpp → the viewer
// (renderer/viewer). The headless tomoraster execs this binary with its command line.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "apps/tomoraster/command.hpp"
#include "compute/core/error.hpp"
#include "compute/core/runtime_options.hpp"
#include "apps/tomoraster/scene_args.hpp"
#include "apps/tomoraster/view_args.hpp"
#include "renderer/viewer/viewer.hpp"

namespace tomo::cli {
namespace {

int run() {
  const ViewArgs& a = view_args();
  viewer::ViewerOptions o;
  int w = 0, h = 0;
  char tail = 0;
  if (std::sscanf(a.size.c_str(), "%dx%d%c", &w, &h, &tail) != 2)
    throw InputError("--size '" + a.size + "' must be WIDTHxHEIGHT, e.g. 1280x800");
  o.width = w;
  o.height = h;
  o.backend = a.backend;
  o.view = viewer::view_from_name(a.view);
  o.screenshot = a.screenshot;
  o.frames = a.frames;
  o.force = a.force;
  o.validate = runtime_options().gl_validate;
  const Scene scene = load_scene_arg(a.scene, a.sets);
  return viewer::run_viewer(scene, o);
}

const CommandRegistrar kRegister({"view", add_view_command, run});

}  // namespace
}  // namespace tomo::cli
