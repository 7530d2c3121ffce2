// Binding points of safir's GL compute passes (shaders/safir/) and the numbers of their pass
// modes. The build generates the GLSL include "bindings/safir.glsl" from this file
// (cmake/bindings_gen.cmake): each `inline constexpr <type> kCamelName = N;` line becomes
// `#define SAFIR_CAMEL_NAME N`. One definition per line, a literal value.
#pragma once

namespace tomo::safir::binding {

// Shader storage buffers.
inline constexpr unsigned kCrystals = 0;     // crystal centres, vec4 (project.comp.glsl)
inline constexpr unsigned kEvents = 1;       // sorted events: a | label << 30, b (project.comp.glsl)
inline constexpr unsigned kRecords = 1;      // line records of the sorted events (tiled.comp.glsl)
inline constexpr unsigned kImage = 2;        // f, the image
inline constexpr unsigned kValues = 3;       // one per sorted event: ȳ or the back-projected weights
inline constexpr unsigned kAcc = 4;          // the back-projection accumulator
inline constexpr unsigned kSensitivity = 5;  // s (update.comp.glsl)
inline constexpr unsigned kOffsets = 6;      // sphere offsets di, dj, dk, shell (spheres.comp.glsl)
inline constexpr unsigned kSums = 7;         // per voxel: inner, shell, n_inner, n_shell

// The MODE define of project.comp.glsl and tiled.comp.glsl (safir::PassMode).
inline constexpr int kModeForward = 0;  // values[l] = Σ_j a_lj f_j
inline constexpr int kModeBack = 1;     // acc_j += a_lj v_l
inline constexpr int kModeMlem = 2;     // both, v_l = 1 / ȳ_l (project.comp.glsl only)

// u_back_mode of tiled.comp.glsl, the v_l of its back mode (safir::BackWeights).
inline constexpr int kBackOnes = 0;    // v_l = 1
inline constexpr int kBackValues = 1;  // v_l = values[l]
inline constexpr int kBackRatio = 2;   // v_l = 1 / (values[l] + n)

}  // namespace tomo::safir::binding
