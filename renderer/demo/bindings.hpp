// Binding points of demo's GL compute pass (shaders/demo/voxelize.comp.glsl). The build
// generates the GLSL include "bindings/demo.glsl" from this file (cmake/bindings_gen.cmake):
// each `inline constexpr unsigned kCamelName = N;` line becomes `#define DEMO_CAMEL_NAME N`.
// Buffers and image units are separate GL name spaces. One definition per line, a literal value.
#pragma once

namespace tomo::demo::binding {

inline constexpr unsigned kShapes = 0;  // shader storage buffer: the packed phantom shapes
inline constexpr unsigned kVolume = 0;  // image unit: the r32f 3D volume written by imageStore

}  // namespace tomo::demo::binding
