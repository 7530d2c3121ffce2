#version 450 core
// oat: the fused discrete FBP reading per-workgroup time windows staged in shared memory (the
// layout and reasoning of cuda/oat/fbp_kernels.hpp, "The shared-memory variant"): a workgroup
// covers 8 × 8 × 16 voxels, an invocation a z-run of VPT of them; per tile of TILE transducers the
// workgroup finds the first sample its box can need (nearest point, two samples of margin) and
// loads SLOT consecutive entries (M_k, D_k) of the RG32F table into shared memory; every update
// then reads shared memory, and an index outside the window reads the texture (never met when the
// host's bound holds). k̃ within u_eps of an integer is recomputed in double (the cpu's side).
// Defines: SLOT (a power of two), TILE, VPT (4 or 8).
#define ZGROUPS (16 / VPT)
#define THREADS (64 * ZGROUPS)
layout(local_size_x = THREADS) in;
#include "fbp_common.glsl"

shared vec4 rec[TILE];  // x, y, z, first window entry (int bits)
shared vec2 win[TILE * SLOT];

vec2 table_entry(int k, int q) { return (k >= 0 && k < u_width) ? texelFetch(u_table, ivec2(k, q), 0).rg : vec2(0.0); }

void main() {
  // A 32-invocation subgroup covers 8 × 4 voxels as two 4 × 4 squares (compact index spread per
  // half-subgroup); subgroups pair up along y, then stack along z (as the cuda kernel).
  int tid = int(gl_LocalInvocationIndex), lane = tid & 31, sg = tid >> 5;
  ivec3 base = ivec3(gl_WorkGroupID) * ivec3(8, 8, 16);
  ivec3 v0 = base + ivec3((lane & 3) | ((lane >> 4) << 2), ((lane >> 2) & 3) | ((sg & 1) << 2), (sg >> 1) * VPT);
  vec3 r = vec3(v0) * u_voxel;
  vec3 box0 = vec3(base) * u_voxel, box1 = box0 + vec3(7.0, 7.0, 15.0) * u_voxel;
  float a1[VPT], a2[VPT];
  for (int v = 0; v < VPT; ++v) a1[v] = a2[v] = 0.0;
  for (int q0 = 0; q0 < u_transducers; q0 += TILE) {
    int n = min(TILE, u_transducers - q0);
    barrier();
    if (tid < n) {
      vec4 s = transducers[q0 + tid];
      float kt = length(clamp(s.xyz, box0, box1) - s.xyz) * u_inv_c0dt - u_tau0;
      rec[tid] = vec4(s.xyz, intBitsToFloat(int(clamp(floor(kt) - 2.0, -1e9, 1e9))));
    }
    barrier();
    for (int e = tid; e < n * SLOT; e += THREADS) {
      int t = e / SLOT;
      win[e] = table_entry(floatBitsToInt(rec[t].w) + (e & (SLOT - 1)), q0 + t);
    }
    barrier();
    for (int t = 0; t < n; ++t) {
      vec4 s = rec[t];
      int kmin = floatBitsToInt(s.w);
      vec2 dxy = r.xy - s.xy;
      float dxy2 = dot(dxy, dxy), dz0 = r.z - s.z;
      for (int v = 0; v < VPT; ++v) {
        float dz = dz0 + float(v) * u_voxel;
        float d2 = dz * dz + dxy2;
        float inv = inversesqrt(d2);
        float kt = d2 * inv * u_inv_c0dt - u_tau0;
        float kf = floor(kt), f = kt - kf;
        if (f < u_eps || f > 1.0 - u_eps) {
          vec2 rf = fbp_refine(v0 + ivec3(0, 0, v), q0 + t);
          kf = rf.x;
          f = rf.y;
        }
        int k = int(kf), idx = k - kmin;
        vec2 T;  // a branch, not a select: the texel fetch must not run for every update
        if (idx >= 0 && idx < SLOT)
          T = win[t * SLOT + idx];
        else
          T = table_entry(k, q0 + t);
        a1[v] += (T.x + (f - 0.5) * T.y) * inv;
        a2[v] += T.y;
      }
    }
  }
  if (any(greaterThanEqual(v0.xy, u_dims.xy))) return;
  for (int v = 0; v < VPT; ++v)
    if (v0.z + v < u_dims.z)
      image[v0.x + u_dims.x * (v0.y + u_dims.y * (v0.z + v))] = u_lin_scale * a1[v] + u_diff_scale * a2[v];
}
