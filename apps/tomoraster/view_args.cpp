#include "apps/tomoraster/view_args.hpp"

#include <CLI/CLI.hpp>

#include "apps/tomoraster/scene_args.hpp"

namespace tomo::cli {

ViewArgs& view_args() {
  static ViewArgs a;
  return a;
}

CLI::App* add_view_command(CLI::App& root) {
  auto& a = view_args();
  auto* sub = root.add_subcommand(
      "view", "Open the viewer (GLFW window): correspondence images, LOR atlases, slices of the ML-EM iterate");
  sub->footer(scene_help_footer({"tomoraster view glpet_small.toml --backend gl",
                                 "tomoraster view --view atlas",
                                 "xvfb-run -a tomoraster view glpet_small.toml --screenshot shot.png --frames 30"}));
  sub->add_option("scene", a.scene, "Scene file (.toml; no SCENE: the embedded default scene)");
  sub->add_option("--backend", a.backend, "Reconstruction backend: cpu | gl | gl-compute | cuda | auto");
  sub->add_option("--set", a.sets, "Override a scene value: key=value (repeatable)")->take_all();
  sub->add_option("--view", a.view, "View shown first")
      ->check(CLI::IsMember({"correspondence", "atlas", "slices"}));
  sub->add_option("--screenshot", a.screenshot,
                  "Run the reconstruction, render --frames frames, write the window as PNG and exit");
  sub->add_option("--frames", a.frames, "Frames to render before the screenshot / exit (0: until closed)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--size", a.size, "Window size WIDTHxHEIGHT (pixels)");
  sub->add_flag("--force", a.force, "Overwrite an existing screenshot file");
  return sub;
}

}  // namespace tomo::cli
