#version 450 core
// fdk `gl-compute` projector A: one invocation per detector pixel and view of the batch marches the
// pixel's ray (ray.glsl) through the volume with fp32 trilinear weights over eight texelFetch taps
// (common/trilinear.glsl, 0 outside the grid), the cpu reference's sampling rule:
// y = weight · Σ_n trilinear(start + n·step). The volume is an R32F 3D texture read without its
// filter: the texture cache's 3D tiling suits rays in every direction, and a 3D texture may exceed
// the 2 GiB an SSBO binding holds.
layout(local_size_x = 16, local_size_y = 8, local_size_z = 1) in;
#include "bindings/fdk.glsl"
layout(binding = FDK_RAY_VOLUME_TEXTURE) uniform sampler3D u_volume;
layout(std430, binding = FDK_RAY_PROJECTIONS) writeonly buffer Projections { float projections[]; };
uniform ivec2 u_detector;  // columns, rows
uniform int u_count;       // views in this dispatch
#include "ray.glsl"        // ray_samples(), u_dims

float sigma_fetch(ivec3 c) {
  if (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, u_dims))) return 0.0;
  return texelFetch(u_volume, c, 0).r;
}
#include "common/trilinear.glsl"  // sigma_at()

void main() {
  ivec3 id = ivec3(gl_GlobalInvocationID);
  if (id.x >= u_detector.x || id.y >= u_detector.y || id.z >= u_count) return;
  RaySamples s = ray_samples(id.z, id.x, id.y);
  float sum = 0.0;
  for (int n = 0; n < s.count; ++n) sum += sigma_at(s.start + float(n) * s.step);
  projections[(id.z * u_detector.y + id.y) * u_detector.x + id.x] = sum * s.weight;
}
