// Binding points of fdk's GL passes (shaders/fdk/): the FDK back-projection and the ray-driven
// projector pair A, Aᵀ of the iterative algorithms. The build generates the
// GLSL include "bindings/fdk.glsl" from this file (cmake/bindings_gen.cmake): each
// `inline constexpr unsigned kCamelName = N;` line becomes `#define FDK_CAMEL_NAME N`.
// Buffers, uniform blocks and texture units are separate GL name spaces. One definition per
// line, a literal value.
#pragma once

namespace tomo::fdk::binding {

// Shader storage buffers of the gl-compute pass (backproject.comp.glsl).
inline constexpr unsigned kVolume = 0;    // the bound z-slab of the volume
inline constexpr unsigned kMatrices = 1;  // 12 floats per projection, column-major

// Uniform block of the gl raster pass (backproject_raster.frag.glsl).
inline constexpr unsigned kMatrixRows = 0;  // 3 rows (vec4) per projection

// Texture units (sample.glsl, both passes).
inline constexpr unsigned kProjections = 0;  // the batch's projections, a 2D array texture

// The ray-driven projector (ray.glsl and the forward_project / back_project passes).
inline constexpr unsigned kRays = 2;             // SSBO: 24 doubles per view of the batch (ray.glsl)
inline constexpr unsigned kRayVolume = 3;        // SSBO: Aᵀ's sum over the volume
inline constexpr unsigned kRayProjections = 4;   // SSBO: the batch's line integrals (A's output, Aᵀ's input)
inline constexpr unsigned kRayVolumeTexture = 1;  // texture unit: A's volume, an R32F 3D texture

}  // namespace tomo::fdk::binding
