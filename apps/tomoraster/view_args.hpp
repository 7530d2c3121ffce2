// Options of `tomoraster view`, shared by the headless binary's stub (which execs
// tomoraster-view with the same command line) and the viewer's real command.
#pragma once
#include <string>
#include <vector>

namespace CLI { class App; }

namespace tomo::cli {

struct ViewArgs {
  std::string scene;
  std::string backend;
  std::vector<std::string> sets;
  std::string screenshot;  // PNG of the window after `frames` frames, then exit
  int frames = 0;          // frames to render (after the reconstruction in screenshot mode); 0 = until closed
  std::string view = "correspondence";
  std::string size = "1280x800";
  bool force = false;      // overwrite an existing screenshot
};

ViewArgs& view_args();
// Adds the `view` subcommand with its options to `root`.
CLI::App* add_view_command(CLI::App& root);

}  // namespace tomo::cli
