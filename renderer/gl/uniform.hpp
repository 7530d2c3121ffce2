// Typed uniform handles: the location is looked up once, by name, right after link (a pass
// keeps its handles in a struct built from the program, see ShaderLibrary::get), and
// set() then writes without a lookup (glProgramUniform*, no program bound).
//
// A name the program's source does not contain throws tomo::Error naming the program and
// the uniform (a typo, a renamed uniform). A uniform the source declares but the linker
// optimised out (unused in this variant or by this driver) gives an inactive handle whose
// set() does nothing, as GL itself does for location -1: a pass may set every uniform of a
// shared include (line_set.glsl) whichever of them its shader reads.
#pragma once
#include <array>
#include <cstddef>
#include <type_traits>

#include "renderer/gl/objects.hpp"

namespace tomo::gl {

using Vec2i = std::array<int, 2>;
using Vec3i = std::array<int, 3>;
using Vec2f = std::array<float, 2>;
using Vec3f = std::array<float, 3>;
using Vec4f = std::array<float, 4>;
using Vec2d = std::array<double, 2>;
using Vec3d = std::array<double, 3>;
using Mat4f = std::array<float, 16>;  // column-major

// How a value type is written: `Scalar` is its component type, set() writes `count`
// consecutive values (an array uniform) from packed components.
template <class T> struct UniformTraits;
#define TOMO_GL_UNIFORM_TRAITS(T, S, CALL)                                                  \
  template <> struct UniformTraits<T> {                                                    \
    using Scalar = S;                                                                      \
    static void set(GLuint p, GLint loc, GLsizei count, const S* v) { CALL(p, loc, count, v); } \
  };
TOMO_GL_UNIFORM_TRAITS(int, GLint, glProgramUniform1iv)
TOMO_GL_UNIFORM_TRAITS(unsigned, GLuint, glProgramUniform1uiv)
TOMO_GL_UNIFORM_TRAITS(float, GLfloat, glProgramUniform1fv)
TOMO_GL_UNIFORM_TRAITS(double, GLdouble, glProgramUniform1dv)
TOMO_GL_UNIFORM_TRAITS(Vec2i, GLint, glProgramUniform2iv)
TOMO_GL_UNIFORM_TRAITS(Vec3i, GLint, glProgramUniform3iv)
TOMO_GL_UNIFORM_TRAITS(Vec2f, GLfloat, glProgramUniform2fv)
TOMO_GL_UNIFORM_TRAITS(Vec3f, GLfloat, glProgramUniform3fv)
TOMO_GL_UNIFORM_TRAITS(Vec4f, GLfloat, glProgramUniform4fv)
TOMO_GL_UNIFORM_TRAITS(Vec2d, GLdouble, glProgramUniform2dv)
TOMO_GL_UNIFORM_TRAITS(Vec3d, GLdouble, glProgramUniform3dv)
#undef TOMO_GL_UNIFORM_TRAITS
template <> struct UniformTraits<Mat4f> {
  using Scalar = GLfloat;
  static void set(GLuint p, GLint loc, GLsizei count, const GLfloat* v) {
    glProgramUniformMatrix4fv(p, loc, count, GL_FALSE, v);
  }
};

template <class T>
class Uniform {
 public:
  using Scalar = typename UniformTraits<T>::Scalar;
  Uniform() = default;
  // Looks `name` up in `program` (Program::location: throws when the source lacks it).
  Uniform(const Program& program, const char* name) : program_(program.id()), location_(program.location(name)) {}

  void set(const T& value) const {
    if (location_ >= 0) UniformTraits<T>::set(program_, location_, 1, scalars(value));
  }
  // `count` elements of an array uniform from packed components (count·components scalars).
  void set_array(const Scalar* packed, std::size_t count) const {
    if (location_ >= 0) UniformTraits<T>::set(program_, location_, GLsizei(count), packed);
  }
  // False when the linker optimised the uniform out: set() does nothing.
  bool active() const { return location_ >= 0; }
  GLint location() const { return location_; }

 private:
  static const Scalar* scalars(const T& v) {
    if constexpr (std::is_arithmetic_v<T>) return reinterpret_cast<const Scalar*>(&v);
    else return v.data();
  }
  GLuint program_ = 0;
  GLint location_ = -1;
};

}  // namespace tomo::gl
