// The one include for OpenGL in tomoraster: the generated glad 2 loader (GL 4.6 core)
// plus TOMO_GL_CHECK, which throws on glGetError and on errors reported by KHR_debug.
#pragma once
#include <glad/gl.h>

#include <string>

namespace tomo::gl {

// Throws tomo::Error("<file>:<line>: <call>: GL_INVALID_...") if GL reported an error,
// or if the debug callback recorded one since the last check (validation mode).
void check_error(const char* call, const char* file, int line);
// Turns a GL enum error into its name.
std::string error_name(GLenum err);

}  // namespace tomo::gl

#define TOMO_GL_CHECK(call)                                  \
  do {                                                       \
    call;                                                    \
    ::tomo::gl::check_error(#call, __FILE__, __LINE__);      \
  } while (0)
