// Binding points of strip's GL compute passes (shaders/strip/). The build generates the GLSL
// include "bindings/strip.glsl" from this file (cmake/bindings_gen.cmake): each
// `inline constexpr unsigned kCamelName = N;` line becomes `#define STRIP_CAMEL_NAME N`.
// One definition per line, a literal value.
#pragma once

namespace tomo::strip::binding {

// Shader storage buffers (kernel.glsl, shared by the ML-EM iteration and the projections).
inline constexpr unsigned kEvents = 0;  // n × (z̃u, z̃d, Δl̃)
inline constexpr unsigned kRho = 1;     // ρ' of the last iteration; x of the forward projection
inline constexpr unsigned kRhoNew = 2;  // the scatter target: ρ_new, or the back-projection
inline constexpr unsigned kValues = 3;  // one per event: forward's result, back's weights

}  // namespace tomo::strip::binding
