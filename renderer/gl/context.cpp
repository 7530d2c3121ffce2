#include "renderer/gl/context.hpp"

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "renderer/gl/debug.hpp"
#include "renderer/gl/gl.hpp"

namespace tomo::gl {

std::string ContextInfo::summary() const {
  return gl_renderer + ", OpenGL " + gl_version + " (" + platform + ")";
}

void Context::finish_setup(void* (*get_proc)(const char*), bool validate) {
  int version = gladLoadGL(reinterpret_cast<GLADloadfunc>(get_proc));
  if (version == 0) throw UnavailableError("could not load OpenGL functions");
  info_.major = GLAD_VERSION_MAJOR(version);
  info_.minor = GLAD_VERSION_MINOR(version);
  auto str = [](GLenum e) {
    const GLubyte* s = glGetString(e);
    return s ? std::string(reinterpret_cast<const char*>(s)) : std::string();
  };
  info_.gl_version = str(GL_VERSION);
  info_.gl_renderer = str(GL_RENDERER);
  info_.gl_vendor = str(GL_VENDOR);
  info_.glsl_version = str(GL_SHADING_LANGUAGE_VERSION);
  if (info_.major < 4 || (info_.major == 4 && info_.minor < 5))
    throw UnavailableError("OpenGL " + info_.gl_version + " on " + info_.gl_renderer +
                           " is too old: tomoraster needs OpenGL 4.5 core or newer");
  GLint n = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &n);
  for (GLint i = 0; i < n; ++i)
    info_.extensions.insert(reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i))));
  install_debug_output(validate);
  log_debug("OpenGL ", info_.major, ".", info_.minor, " core on ", info_.gl_renderer, " (", info_.platform, ")");
}

}  // namespace tomo::gl
