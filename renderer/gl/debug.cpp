#include "renderer/gl/debug.hpp"

#include <mutex>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "renderer/gl/gl.hpp"

namespace tomo::gl {
namespace {

std::mutex g_mutex;
std::optional<std::string> g_pending;
bool g_validate = false;

const char* source_name(GLenum s) {
  switch (s) {
    case GL_DEBUG_SOURCE_API: return "api";
    case GL_DEBUG_SOURCE_SHADER_COMPILER: return "shader compiler";
    case GL_DEBUG_SOURCE_WINDOW_SYSTEM: return "window system";
    case GL_DEBUG_SOURCE_THIRD_PARTY: return "third party";
    case GL_DEBUG_SOURCE_APPLICATION: return "application";
    default: return "other";
  }
}

void GLAD_API_PTR on_debug(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                           const GLchar* message, const void*) {
  std::string text = str_cat("GL ", source_name(source), " #", id, ": ", std::string(message, length > 0 ? length : 0));
  if (type == GL_DEBUG_TYPE_ERROR) {
    log_error(text);
    if (g_validate) {
      std::lock_guard lock(g_mutex);
      if (!g_pending) g_pending = text;
    }
  } else if (type == GL_DEBUG_TYPE_PERFORMANCE) {
    // Driver hints ("Buffer performance warning: … copied/moved from VIDEO memory to HOST
    // memory", NVIDIA #131186, repeated dozens of times per cross-check) are about speed, not
    // results: debug level, seen with -v.
    log_debug(text);
  } else if (severity == GL_DEBUG_SEVERITY_HIGH || severity == GL_DEBUG_SEVERITY_MEDIUM) {
    log_warn(text);
  } else if (severity != GL_DEBUG_SEVERITY_NOTIFICATION) {
    log_debug(text);
  }
}

}  // namespace

void install_debug_output(bool validate) {
  g_validate = validate;
  if (!glDebugMessageCallback) return;
  glEnable(GL_DEBUG_OUTPUT);
  if (validate) glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
  else glDisable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
  glDebugMessageCallback(on_debug, nullptr);
  // Notifications (buffer placement hints and the like) are noise.
  glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DEBUG_SEVERITY_NOTIFICATION, 0, nullptr, GL_FALSE);
}

std::optional<std::string> take_debug_error() {
  std::lock_guard lock(g_mutex);
  auto out = std::move(g_pending);
  g_pending.reset();
  return out;
}

std::string error_name(GLenum err) {
  switch (err) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    default: return "GL error " + std::to_string(err);
  }
}

void check_error(const char* call, const char* file, int line) {
  GLenum err = glGetError();
  auto debug = take_debug_error();
  if (err == GL_NO_ERROR && !debug) return;
  std::string text = str_cat(file, ":", line, ": ", call, ": ");
  if (err != GL_NO_ERROR) {
    text += error_name(err);
    while (glGetError() != GL_NO_ERROR) {
    }
  }
  if (debug) text += (err != GL_NO_ERROR ? " — " : "") + *debug;
  throw Error(text);
}

}  // namespace tomo::gl
