#include "renderer/window/window_context.hpp"

#include <GLFW/glfw3.h>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "renderer/window/no_display.hpp"

namespace tomo::gl {
namespace {

std::string g_last_glfw_error;
void on_glfw_error(int code, const char* text) { g_last_glfw_error = std::to_string(code) + ": " + text; }
void* glfw_proc(const char* name) { return reinterpret_cast<void*>(glfwGetProcAddress(name)); }

}  // namespace

std::unique_ptr<WindowContext> WindowContext::create(const WindowOptions& options) {
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit())
    throw UnavailableError(no_display_message("GLFW: " + g_last_glfw_error));
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, options.validate ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_VISIBLE, options.visible ? GLFW_TRUE : GLFW_FALSE);
  GLFWwindow* w = nullptr;
  for (int minor : {6, 5}) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, minor);
    w = glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
    if (w) break;
  }
  if (!w) {
    glfwTerminate();
    throw UnavailableError(no_display_message("no OpenGL 4.5+ core window: " + g_last_glfw_error));
  }
  std::unique_ptr<WindowContext> ctx(new WindowContext());
  ctx->window_ = w;
  glfwMakeContextCurrent(w);
  ctx->info_.platform = "GLFW window";
  ctx->finish_setup(glfw_proc, options.validate);
  return ctx;
}

WindowContext::~WindowContext() {
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

void WindowContext::make_current() { glfwMakeContextCurrent(window_); }
bool WindowContext::should_close() const { return glfwWindowShouldClose(window_); }
void WindowContext::swap_and_poll() {
  glfwSwapBuffers(window_);
  glfwPollEvents();
}
std::pair<int, int> WindowContext::framebuffer_size() const {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  return {w, h};
}

}  // namespace tomo::gl
