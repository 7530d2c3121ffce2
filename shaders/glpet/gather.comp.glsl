#version 450 core
// glpet gl-compute gathering back-projection ([Toth2010] §IV, eq. (3)): one work group per
// voxel, invocations over the lines of its correspondence images, a shared-memory sum.
// u_mode (glpet::GatherMode) 0: b_v = Σ a·z_l; 1: b_v = Σ a·y_l/ỹ_l (0 where ỹ_l <= 0); 2: no b
// (u_want_b is 0). u_want_sens: s_v = Σ a.
// One dispatch per module pair; u_accumulate adds to the previous pairs' sums.
layout(local_size_x = 128) in;
#include "line_set.glsl"

layout(std430, binding = GLPET_LORS) readonly buffer Z { float z[]; };       // z or y
layout(std430, binding = GLPET_LORS_ESTIMATE) readonly buffer T { float ytilde[]; };  // ỹ (mode 1)
layout(std430, binding = GLPET_BACK) buffer B { float b[]; };
layout(std430, binding = GLPET_SENSITIVITY) buffer S { float sens[]; };
uniform uint u_first_voxel;
uniform uint u_voxel_count;
uniform int u_mode;
uniform int u_want_b;
uniform int u_want_sens;
uniform int u_accumulate;

shared float s_b[128];
shared float s_s[128];

void main() {
  // No early return: every invocation must reach barrier() below (GLSL compilers may
  // reject a barrier after a return in main()).
  uint vox = u_first_voxel + gl_WorkGroupID.x;
  bool in_grid = vox < u_voxel_count;  // uniform per work group
  int W = u_R * u_na;
  int lines = in_grid ? W * u_R * u_nt : 0;
  ivec3 ijk = voxel_ijk(vox);
  float sb = 0.0, ss = 0.0;
  for (int n = 0; n < u_N && in_grid; ++n) {
    Frame f = make_frame(sample_position(ijk, n));
    for (int li = int(gl_LocalInvocationID.x); li < lines; li += int(gl_WorkGroupSize.x)) {
      uint lor;
      float w;
      ivec2 rs;
      if (!trace(f, li % W, li / W, lor, w, rs)) continue;
      ss += w;
      if (u_want_b != 0) {
        uint l = u_lor_offset + lor;
        float zl = z[l];
        if (u_mode == 1) {
          float tl = ytilde[l];
          zl = tl > 0.0 ? zl / tl : 0.0;
        }
        sb = fma(w, zl, sb);
      }
    }
  }
  uint tid = gl_LocalInvocationID.x;
  s_b[tid] = sb;
  s_s[tid] = ss;
  barrier();
  for (uint h = gl_WorkGroupSize.x / 2u; h > 0u; h >>= 1) {
    if (tid < h) {
      s_b[tid] += s_b[tid + h];
      s_s[tid] += s_s[tid + h];
    }
    barrier();
  }
  if (tid == 0u && in_grid) {
    float inv_n = 1.0 / float(u_N);
    if (u_want_b != 0) b[vox] = (u_accumulate != 0 ? b[vox] : 0.0) + s_b[0] * inv_n;
    if (u_want_sens != 0) sens[vox] = (u_accumulate != 0 ? sens[vox] : 0.0) + s_s[0] * inv_n;
  }
}
