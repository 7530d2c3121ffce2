// Binding points of the viewer's GL passes (shaders/viewer/) and the numbers of its atlas modes
// and colour maps. The build generates the GLSL include "bindings/viewer.glsl" from this file
// (cmake/bindings_gen.cmake): each `inline constexpr <type> kCamelName = N;` line becomes
// `#define VIEWER_CAMEL_NAME N`. Buffers and texture units are separate GL name spaces;
// numbers repeat between passes. One definition per line, a literal value.
#pragma once

namespace tomo::viewer::binding {

// Shader storage buffers of atlas.frag.glsl.
inline constexpr unsigned kMeasured = 0;    // y
inline constexpr unsigned kEstimated = 1;   // ỹ = A x
inline constexpr unsigned kAtlasStats = 2;  // GlpetSession::stats(): maxima as float bits

// Shader storage buffers of volume.frag.glsl and max.comp.glsl.
inline constexpr unsigned kData = 0;   // the image (volume) or the array to take the maximum of (max)
inline constexpr unsigned kStats = 1;  // GlpetSession::stats()

// Texture unit of correspondence.frag.glsl.
inline constexpr unsigned kCorrespondence = 0;  // the glpet correspondence target, layer 0

// u_mode of atlas.frag.glsl (viewer::AtlasMode).
inline constexpr int kAtlasMeasured = 0;
inline constexpr int kAtlasEstimated = 1;
inline constexpr int kAtlasRatio = 2;  // y / ỹ

// The map argument of colour.glsl's colour_map() (viewer::ColourMap).
inline constexpr int kMapGray = 0;
inline constexpr int kMapHot = 1;
inline constexpr int kMapViridis = 2;

}  // namespace tomo::viewer::binding
