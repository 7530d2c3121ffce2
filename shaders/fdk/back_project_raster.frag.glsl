#version 450 core
// fdk `gl` projector Aᵀ as a graphics pass: the same full-viewport triangle per view as
// forward_project_raster, on a framebuffer without attachments; each fragment (detector pixel
// (i, j) of view LAYER) scatters its line integral along its ray into the volume SSBO
// (ray_scatter.glsl): the exact transpose of the fp32 trilinear march, as gl-compute's Aᵀ.
#ifdef FLOAT_ATOMICS
#extension GL_NV_shader_atomic_float : require
#endif
#include "common/layer_in.glsl"
#include "bindings/fdk.glsl"
#define FLOAT_ADD_BINDING FDK_RAY_VOLUME
#define FLOAT_ADD_NAME volume
#include "common/float_add.glsl"
layout(std430, binding = FDK_RAY_PROJECTIONS) readonly buffer Projections { float projections[]; };
uniform ivec2 u_detector;  // columns, rows
#include "ray_scatter.glsl"

void main() {
  ivec2 ij = ivec2(gl_FragCoord.xy);
  scatter_ray(LAYER, ij.x, ij.y, projections[(LAYER * u_detector.y + ij.y) * u_detector.x + ij.x]);
}
