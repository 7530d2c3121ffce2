// Binding points of glpet's GL passes (shaders/glpet/). The build generates the GLSL include
// "bindings/glpet.glsl" from this file (cmake/bindings.cmake): each
// `inline constexpr unsigned kCamelName = N;` line becomes `#define GLPET_CAMEL_NAME N`.
// Buffers and texture units are separate GL name spaces; numbers repeat between passes that
// never run together. One definition per line, a literal value.
#pragma once

namespace tomo::glpet::binding {

// Shader storage buffers of the raster passes (gl backend) and of the gathers.
inline constexpr unsigned kCameras = 0;       // raster_common.glsl: one camera record per voxel sample
inline constexpr unsigned kImage = 2;         // x: forward weights, pass 1's skip of zero voxels
inline constexpr unsigned kLors = 3;          // z or y read by back-projection, ỹ written by forward
inline constexpr unsigned kLorsEstimate = 4;  // ỹ, the denominator of back_ratio
inline constexpr unsigned kBack = 5;          // b, the back-projection
inline constexpr unsigned kSensitivity = 6;   // s, the sensitivity image

// Shader storage buffers of the line set (line_set.glsl, gl-compute backend).
inline constexpr unsigned kSigma = 0;                 // σ_t, x fastest
inline constexpr unsigned kOffsets = 1;               // N × 3 sample offsets, voxel units
inline constexpr unsigned kCorrespondenceImage = 3;   // correspondence.comp.glsl's output

// Shader storage buffers of the ML-EM update (mlem_update.comp.glsl).
inline constexpr unsigned kUpdateImage = 0;
inline constexpr unsigned kUpdateBack = 1;
inline constexpr unsigned kUpdateSensitivity = 2;

// Texture units of the raster passes.
inline constexpr unsigned kSigmaTexture = 0;      // σ_t volume (correspondence.frag.glsl)
inline constexpr unsigned kCorrespondence = 1;    // the batch's correspondence images
inline constexpr unsigned kReduction = 2;         // the halving sums (collect.comp.glsl)

}  // namespace tomo::glpet::binding
