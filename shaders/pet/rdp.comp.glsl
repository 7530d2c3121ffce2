#version 450 core
// The relative difference prior ([Nuyts2002]) as one 3×3×3 stencil pass (no atomics): TERM 0
// the voxel's share of the value (Σ_k w κ_j κ_k f, halved and summed on the host), 1 the
// gradient, 2 the Hessian diagonal, 3 the gradient and (into a second buffer) the Hessian
// diagonal from one walk, each pair's reciprocal shared. A work group owns a 32×8 column of the image and marches
// along z through RDP_CHUNK planes, keeping three planes of x and κ (one-voxel halo, 0 outside
// the image) in shared memory; the 26 weights are computed once per group and each pair term
// takes one reciprocal (rdp.glsl's terms multiplied out).
#define TX 32
#define TY 8
#define RDP_CHUNK 16
#define PX (TX + 2)
#define PLANE (PX * (TY + 2))
layout(local_size_x = TX, local_size_y = TY) in;
#include "bindings/pet.glsl"
#include "rdp.glsl"

layout(std430, binding = PET_IMAGE) readonly buffer Image { float x[]; };
layout(std430, binding = PET_KAPPA) readonly buffer Kappa { float kappa[]; };
layout(std430, binding = PET_OUT) writeonly buffer Out { float result[]; };
#if TERM == 3
layout(std430, binding = PET_OUT2) writeonly buffer Out2 { float result2[]; };
#endif

uniform ivec3 u_dims;
uniform vec3 u_voxel;   // voxel sides (mm)
uniform vec2 u_params;  // γ, ε

shared float sx[3][PLANE];
shared float sk[3][PLANE];
shared float sw[27];

void load_plane(int k, ivec2 o, int slot) {
  int tid = int(gl_LocalInvocationIndex);
  bool in_z = k >= 0 && k < u_dims.z;
  for (int t = tid; t < PLANE; t += TX * TY) {
    ivec2 q = o - 1 + ivec2(t % PX, t / PX);
    float xv = 0.0, kv = 0.0;
    if (in_z && all(greaterThanEqual(q, ivec2(0))) && all(lessThan(q, u_dims.xy))) {
      uint b = uint(q.x) + uint(u_dims.x) * (uint(q.y) + uint(u_dims.y) * uint(k));
      xv = x[b];
      kv = kappa[b];
    }
    sx[slot][t] = xv;
    sk[slot][t] = kv;
  }
}

// The pair's terms for the voxel with value xa: .x that of TERM (the gradient's for TERM 3),
// .y the Hessian's for TERM 3 (the expressions of TERM 1 and 2, one reciprocal).
vec2 pair_term(float xa, float xb, float g, float e) {
  float d = xa - xb, ad = abs(d), D = xa + xb + g * ad + e;
  float r = D > 0.0 ? 1.0 / D : 0.0;
#if TERM == 0
  return vec2(d * d * r, 0.0);
#elif TERM == 1
  return vec2(d * (xa + 3.0 * xb + g * ad + 2.0 * e) * (r * r), 0.0);
#elif TERM == 2
  float c = 2.0 * xb + e;
  return vec2(2.0 * c * c * (r * r * r), 0.0);
#else
  float c = 2.0 * xb + e;
  return vec2(d * (xa + 3.0 * xb + g * ad + 2.0 * e) * (r * r), 2.0 * c * c * (r * r * r));
#endif
}

void main() {
  ivec2 o = ivec2(gl_WorkGroupID.xy) * ivec2(TX, TY);
  int k0 = int(gl_WorkGroupID.z) * RDP_CHUNK, k1 = min(k0 + RDP_CHUNK, u_dims.z);
  ivec2 p = o + ivec2(gl_LocalInvocationID.xy);
  bool inside = all(lessThan(p, u_dims.xy));
  int c = (int(gl_LocalInvocationID.y) + 1) * PX + int(gl_LocalInvocationID.x) + 1;
  uint tid = gl_LocalInvocationIndex;
  if (tid < 27u) {
    ivec3 off = ivec3(int(tid % 3u) - 1, int((tid / 3u) % 3u) - 1, int(tid / 9u) - 1);
    sw[tid] = tid == 13u ? 0.0 : rdp_weight(off, u_voxel);
  }
  load_plane(k0 - 1, o, 0);
  load_plane(k0, o, 1);
  int lo = 0, mid = 1, hi = 2;
  for (int k = k0; k < k1; ++k) {
    load_plane(k + 1, o, hi);
    barrier();
    if (inside) {
      float ka = sk[mid][c], xa = sx[mid][c];
      vec2 sum = vec2(0.0);
      if (ka != 0.0) {
        int slots[3] = int[3](lo, mid, hi);
        for (int dk = 0; dk < 3; ++dk)
          for (int dj = -1; dj <= 1; ++dj)
            for (int di = -1; di <= 1; ++di) {
              int q = c + dj * PX + di;
              float kb = sk[slots[dk]][q];
              float w = sw[dk * 9 + (dj + 1) * 3 + di + 1];  // 0 at the centre
              if (kb != 0.0 && w != 0.0) sum += w * kb * pair_term(xa, sx[slots[dk]][q], u_params.x, u_params.y);
            }
      }
      uint v = uint(p.x) + uint(u_dims.x) * (uint(p.y) + uint(u_dims.y) * uint(k));
      result[v] = ka * sum.x;
#if TERM == 3
      result2[v] = ka * sum.y;
#endif
    }
    barrier();
    int t = lo;
    lo = mid;
    mid = hi;
    hi = t;
  }
}
