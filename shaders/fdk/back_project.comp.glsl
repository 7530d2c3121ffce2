#version 450 core
// fdk `gl-compute` projector Aᵀ: one invocation per detector pixel and view of the batch scatters
// its line integral back along the ray (ray_scatter.glsl) into the volume SSBO. FLOAT_ATOMICS:
// float atomicAdd (GL_NV_shader_atomic_float); otherwise the exact CAS loop of common/float_add.glsl.
#ifdef FLOAT_ATOMICS
#extension GL_NV_shader_atomic_float : require
#endif
layout(local_size_x = 16, local_size_y = 8, local_size_z = 1) in;
#include "bindings/fdk.glsl"
#define FLOAT_ADD_BINDING FDK_RAY_VOLUME
#define FLOAT_ADD_NAME volume
#include "common/float_add.glsl"
layout(std430, binding = FDK_RAY_PROJECTIONS) readonly buffer Projections { float projections[]; };
uniform ivec2 u_detector;  // columns, rows
uniform int u_count;       // views in this dispatch
#include "ray_scatter.glsl"

void main() {
  ivec3 id = ivec3(gl_GlobalInvocationID);
  if (id.x >= u_detector.x || id.y >= u_detector.y || id.z >= u_count) return;
  scatter_ray(id.z, id.x, id.y, projections[(id.z * u_detector.y + id.y) * u_detector.x + id.x]);
}
