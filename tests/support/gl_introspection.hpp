// Test support: what a linked program binds where, read back from GL (program introspection),
// and the values GLSL sees for a generated bindings include — so tests can hold both sides of
// a binding point against renderer/<folder>/bindings.hpp.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "renderer/gl/engine.hpp"

namespace tomo::test {

// The binding of `block` (a buffer or uniform block) in the linked program; -1 when inactive.
inline GLint block_binding(const gl::Program& p, GLenum interface, const char* block) {
  const GLuint index = glGetProgramResourceIndex(p.id(), interface, block);
  EXPECT_NE(index, GL_INVALID_INDEX) << p.name() << ": no active block " << block;
  if (index == GL_INVALID_INDEX) return -1;
  const GLenum prop = GL_BUFFER_BINDING;
  GLint binding = -1;
  glGetProgramResourceiv(p.id(), interface, index, 1, &prop, 1, nullptr, &binding);
  return binding;
}

inline GLint ssbo_binding(const gl::Program& p, const char* block) {
  return block_binding(p, GL_SHADER_STORAGE_BLOCK, block);
}

// The unit a sampler or image uniform reads (its value, set by the shader's layout binding).
inline GLint unit_of(const gl::Program& p, const char* uniform) {
  const GLint loc = glGetUniformLocation(p.id(), uniform);
  EXPECT_GE(loc, 0) << p.name() << ": no active uniform " << uniform;
  GLint unit = -1;
  if (loc >= 0) glGetUniformiv(p.id(), loc, &unit);
  return unit;
}

// Every named macro of `include`, written by a compute shader into a buffer: the values GLSL
// sees. T is int or unsigned.
template <class T>
std::vector<T> glsl_values(const std::string& include, const std::vector<std::pair<std::string, T>>& names) {
  static_assert(std::is_same_v<T, int> || std::is_same_v<T, unsigned>);
  const std::string type = std::is_same_v<T, int> ? "int" : "uint";
  std::string src = "#version 450 core\n" + gl::shaders().load(include) +
                    "layout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer Out { " + type +
                    " v[]; };\nvoid main() {\n";
  for (std::size_t i = 0; i < names.size(); ++i)
    src += "  v[" + std::to_string(i) + "] = " + type + "(" + names[i].first + ");\n";
  src += "}\n";
  gl::Program p = gl::ShaderLibrary::build({{gl::Stage::Compute, src}}, "bindings probe " + include);
  gl::Buffer out(names.size() * sizeof(T));
  out.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  p.dispatch(1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  return out.read<T>();
}

}  // namespace tomo::test
