#version 450 core
// oat: the fused discrete FBP ([Wang2013] "FBP", kernel_math.hpp fbp_term rearranged as in
// cuda/oat/fbp_kernels.hpp): one invocation per voxel, transducers staged through shared memory,
// the data (M_k, D_k) = w_q·(½(p_k + p_{k+1}), p_{k+1} − p_k) in an RG32F texture, K − 1 wide, Q
// high, read by texelFetch at ⌊k̃⌋ with fp32 f (M + (f − ½)·D = P_k + f·D_k). The held difference
// D_k jumps where k̃ crosses an integer: pairs with k̃ within u_eps of one recompute k̃ in double
// from double positions (the cpu's side).
layout(local_size_x = 8, local_size_y = 4, local_size_z = 4) in;
#include "fbp_common.glsl"

const int TILE = 128;
shared vec4 tile[TILE];

void main() {
  ivec3 v = ivec3(gl_GlobalInvocationID);
  vec3 r = vec3(v) * u_voxel;
  int tid = int(gl_LocalInvocationIndex);
  float a1 = 0.0, a2 = 0.0;
  for (int q0 = 0; q0 < u_transducers; q0 += TILE) {
    int n = min(TILE, u_transducers - q0);
    barrier();
    if (tid < n) tile[tid] = transducers[q0 + tid];
    barrier();
    for (int t = 0; t < n; ++t) {
      vec3 d = r - tile[t].xyz;
      float d2 = dot(d, d);
      float inv = inversesqrt(d2);
      float kt = d2 * inv * u_inv_c0dt - u_tau0;
      float kf = floor(kt), f = kt - kf;
      if (f < u_eps || f > 1.0 - u_eps) {
        vec2 rf = fbp_refine(v, q0 + t);
        kf = rf.x;
        f = rf.y;
      }
      int k = int(kf);
      if (k < 0 || k >= u_width) continue;  // fbp_term's 0 where k or k + 1 is outside the data
      vec2 T = texelFetch(u_table, ivec2(k, q0 + t), 0).rg;
      a1 += (T.x + (f - 0.5) * T.y) * inv;
      a2 += T.y;
    }
  }
  if (any(greaterThanEqual(v, u_dims))) return;
  image[v.x + u_dims.x * (v.y + u_dims.y * v.z)] = u_lin_scale * a1 + u_diff_scale * a2;
}
