// `tomoraster view`: a GLFW window (GL 4.6/4.5 core) that shows what the glpet passes
// produce — correspondence images, LOR atlases, slices and MIP of the ML-EM iterate —
// with a Dear ImGui side panel. The window's context is installed in the GL engine, so
// the passes render where the viewer draws. docs/viewer.md.
#pragma once
#include <filesystem>
#include <string>

namespace tomo {
class Scene;
}

namespace tomo::viewer {

enum class View { Correspondence, Atlas, Slices };
View view_from_name(const std::string& name);  // InputError when unknown

struct ViewerOptions {
  std::string backend;                // empty: the scene's, else auto
  View view = View::Correspondence;
  std::filesystem::path screenshot;   // non-empty: reconstruct, render `frames`, write PNG, exit
  int frames = 0;                     // 0: until the window closes (screenshot: 1)
  int width = 1280, height = 800;
  bool force = false;                 // overwrite an existing screenshot
  bool validate = false;              // synchronous GL debug output
};

// Returns the exit status. Throws UnavailableError (one sentence) without a display.
int run_viewer(const Scene& scene, const ViewerOptions& options);

}  // namespace tomo::viewer
