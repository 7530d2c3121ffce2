// The one sentence every viewer entry point prints when there is no display. Header-only
// and GLFW-free, so the headless `tomoraster` can say it without linking tomo_window.
#pragma once
#include <string>

namespace tomo::gl {

// `why`: what failed ("DISPLAY is not set", the GLFW error).
inline std::string no_display_message(const std::string& why) {
  return "tomoraster view needs a display (" + why +
         "): use `tomoraster run SCENE` for headless work, or take a screenshot under Xvfb with "
         "`xvfb-run -a tomoraster view SCENE --screenshot FILE.png --frames 3`";
}

}  // namespace tomo::gl
