// A GLFW window with an OpenGL 4.6 (else 4.5) core context, for the viewer. Lives in
// its own library (tomo_window) so headless binaries and CI never need a display.
#pragma once
#include <memory>
#include <string>

#include "renderer/gl/context.hpp"

struct GLFWwindow;

namespace tomo::gl {

struct WindowOptions {
  std::string title = "tomoraster";
  int width = 1280, height = 800;
  bool visible = true;
  bool validate = false;
};

class WindowContext final : public Context {
 public:
  // Throws UnavailableError with one sentence when there is no display.
  static std::unique_ptr<WindowContext> create(const WindowOptions& options);
  ~WindowContext() override;
  void make_current() override;

  GLFWwindow* window() const { return window_; }
  bool should_close() const;
  void swap_and_poll();
  std::pair<int, int> framebuffer_size() const;

 private:
  WindowContext() = default;
  GLFWwindow* window_ = nullptr;
};

}  // namespace tomo::gl
