// Binding points of oat's GL passes (shaders/oat/) and the stage numbers of time_stages.comp.glsl.
// The build generates the GLSL include "bindings/oat.glsl" from this file (cmake/bindings.cmake):
// each `inline constexpr <type> kCamelName = N;` line becomes `#define OAT_CAMEL_NAME N`.
// Buffers and texture units are separate GL name spaces; numbers repeat between passes that
// never run together. One definition per line, a literal value.
#pragma once

namespace tomo::oat::binding {

// Shader storage buffers of the FBP (fbp_common.glsl, both fbp*.comp.glsl).
inline constexpr unsigned kFbpTransducers = 0;  // xyz − voxel 0, one vec4 per transducer
inline constexpr unsigned kFbpImage = 1;        // the reconstruction, x fastest
inline constexpr unsigned kFbpPositions = 2;    // the same positions, 3 doubles each

// Shader storage buffers of H_srt and its transpose (srt.comp.glsl, srt_gather.comp.glsl).
inline constexpr unsigned kShellFrames = 0;  // ShellFrame per transducer, 14 floats
inline constexpr unsigned kShellAlpha = 1;   // α, x fastest (read forward, scattered into by the transpose)
inline constexpr unsigned kShellSums = 2;    // g, one sum per shell sample (written forward, read by the transpose)
inline constexpr unsigned kShellCaps = 3;    // (θ_max, n_theta) per shell sample

// Shader storage buffers of the time stages (time_stages.comp.glsl).
inline constexpr unsigned kStageIn = 0;
inline constexpr unsigned kStageOut = 1;
inline constexpr unsigned kStageTaps = 2;  // the EIR taps h_j

// Shader storage buffers of H_sph (sph.glsl, sph_forward.comp.glsl, sph_adjoint.comp.glsl).
inline constexpr unsigned kSphPoints = 0;         // Q·P face points
inline constexpr unsigned kSphForwardAlpha = 1;   // α, read by the forward
inline constexpr unsigned kSphForwardSums = 2;    // Q·L complex sums, written by the forward
inline constexpr unsigned kSphAdjointWeighted = 1;  // Q·L weighted data, read by the adjoint
inline constexpr unsigned kSphAdjointAlpha = 2;     // α, written by the adjoint

// Texture units.
inline constexpr unsigned kFbpTable = 0;  // (M_k, D_k), K − 1 wide, Q high (RG32F)
inline constexpr unsigned kVolume = 0;    // α as a 3D texture (H_srt's hardware trilinear fetch)

}  // namespace tomo::oat::binding

namespace tomo::oat::stage {

// Values of time_stages.comp.glsl's STAGE define (the TimeStage of gl_compute_model.cpp).
inline constexpr int kStageDerivative = 0;         // p = D g
inline constexpr int kStageDerivativeAdjoint = 1;  // g = Dᵀ p (K + 2 outputs per transducer)
inline constexpr int kStageEir = 2;                // u = H_eir p
inline constexpr int kStageEirAdjoint = 3;         // p = H_eirᵀ u

}  // namespace tomo::oat::stage
