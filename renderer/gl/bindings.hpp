// Binding points of the engine's shared passes (shaders/common/). The build generates the
// GLSL include "bindings/gl.glsl" from this file (cmake/bindings.cmake): each
// `inline constexpr unsigned kCamelName = N;` line becomes `#define TOMO_CAMEL_NAME N`, so the
// C++ side and the shaders name the same number. One definition per line, a literal value.
#pragma once

namespace tomo::gl::binding {

// Uniform blocks.
inline constexpr unsigned kGridBlock = 15;  // common/grid.glsl, filled by gl::GridBlock

// Texture units.
inline constexpr unsigned kHalveSource = 0;  // common/halve_sum.frag.glsl: the finer level

}  // namespace tomo::gl::binding
