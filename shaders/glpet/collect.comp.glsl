#version 450 core
// glpet raster pass 3c: the 1×1 level of the mip-reduction holds each layer's two sums
// ([Toth2010] §IV); one invocation per voxel of the batch adds its N samples' sums / N into
// b_v and s_v (which hold the previous pairs' and batches' sums: no two invocations share a voxel).
layout(local_size_x = 64) in;
#include "bindings/glpet.glsl"
layout(std430, binding = GLPET_BACK) buffer B { float b[]; };
layout(std430, binding = GLPET_SENSITIVITY) buffer S { float sens[]; };
layout(binding = GLPET_REDUCTION) uniform sampler2DArray u_red;
uniform int u_top;  // level of the 1×1 totals
uniform uint u_first_voxel;
uniform uint u_batch_voxels;
uniform int u_N;
uniform int u_want_b;
uniform int u_want_sens;

void main() {
  uint lv = gl_GlobalInvocationID.x;
  if (lv >= u_batch_voxels) return;
  vec4 sum = vec4(0.0);
  for (int n = 0; n < u_N; ++n) sum += texelFetch(u_red, ivec3(0, 0, int(lv) * u_N + n), u_top);
  uint v = u_first_voxel + lv;
  float inv_n = 1.0 / float(u_N);
  if (u_want_b != 0) b[v] += sum.x * inv_n;
  if (u_want_sens != 0) sens[v] += sum.y * inv_n;
}
