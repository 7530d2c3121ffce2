// Binding points of the reconstruction layer's GL compute passes (shaders/pet/). The build
// generates the GLSL include "bindings/pet.glsl" from this file (cmake/bindings_gen.cmake).
// One definition per line, a literal value.
#pragma once

namespace tomo::pet::binding {

inline constexpr unsigned kImage = 0;  // x, one float per voxel
inline constexpr unsigned kKappa = 1;  // κ, one float per voxel (ones when none is given)
inline constexpr unsigned kOut = 2;    // the per-voxel result of the pass
inline constexpr unsigned kOut2 = 3;   // the Hessian diagonal of the pass that also writes the gradient

}  // namespace tomo::pet::binding
