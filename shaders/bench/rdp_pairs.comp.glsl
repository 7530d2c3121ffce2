#version 450 core
// Bench-only: a candidate for shaders/pet/rdp.comp.glsl that lost on the H200 (0.85 ms against
// the product's 0.48 ms for a 256³ gradient; NVIDIA's GLSL compiler seems to keep the register
// arrays in memory). Kept to measure again.
// The relative difference prior ([Nuyts2002]) as one 3×3×3 stencil pass (no atomics): TERM 0
// the voxel's share of the value (Σ_k w κ_j κ_k f, halved and summed on the host), 1 the
// gradient, 2 the Hessian diagonal. Each of the 13 unordered neighbour pairs of a voxel is
// evaluated once and credited to both voxels (one reciprocal of D serves both ends), the scheme
// of cuda/pet/rdp_kernels.cu with shared memory in place of shuffles:
// an invocation owns one column along x (RDP_COLS of a group's 32 write; the outer two are halo)
// and RDP_ROWS rows along y plus a halo row on each side, held in registers, and marches along z
// through RDP_CHUNK planes. Per plane step it evaluates the pairs inside its own rows (planes k
// and k + 1) and those with the next invocation's rows, whose values it reads from shared memory;
// the next invocation's halves go back through shared memory once per row.
// bench/pet_bench_prior.cpp dispatches it.
#define LX 32
#define LY 4
#define RDP_ROWS 8
#define RDP_CHUNK 16
#define RDP_COLS (LX - 2)
#define KSET (RDP_ROWS + 2)
layout(local_size_x = LX, local_size_y = LY) in;
#include "bindings/pet.glsl"
#include "pet/rdp.glsl"

layout(std430, binding = PET_IMAGE) readonly buffer Image { float x[]; };
layout(std430, binding = PET_KAPPA) readonly buffer Kappa { float kappa[]; };
layout(std430, binding = PET_OUT) writeonly buffer Out { float result[]; };

uniform ivec3 u_dims;
uniform vec3 u_voxel;   // voxel sides (mm)
uniform vec2 u_params;  // γ, ε

shared float s_x[LY][KSET][LX];
shared float s_k[LY][KSET][LX];
shared float s_rl[LY][KSET][LX];
shared float s_ru[LY][KSET][LX];

// One unordered pair (a, b) at weight w: acc_a += w κ_b t(a, b), acc_b += w κ_a t(b, a) for
// rdp.glsl's term t with one reciprocal of D. sa, sb are the values shifted by ε/2: d = sa − sb,
// D = sa + sb + γ|d|, 2b + ε = 2 sb; the Hessian (2b + ε)²/D³ as ((2b + ε)/D)²/D (finite for tiny
// ε). A D ≤ 0 (negative images only) contributes 0.
void pair(float sa, float ka, float sb, float kb, float w, inout float acc_a, inout float acc_b) {
  float d = sa - sb, D = fma(u_params.x, abs(d), sa + sb);
  float r = D > 0.0 ? 1.0 / D : 0.0;
#if TERM == 0
  float f = w * d * d * r;
  acc_a = fma(f, kb, acc_a);
  acc_b = fma(f, ka, acc_b);
#elif TERM == 1
  float wdr = w * d * r, r2 = r + r;
  acc_a = fma(wdr * kb, fma(sb, r2, 1.0), acc_a);
  acc_b = fma(-wdr * ka, fma(sa, r2, 1.0), acc_b);
#else
  float h = 2.0 * w * r, r2 = r + r, ta = sa * r2, tb = sb * r2;
  acc_a = fma(h * kb * tb, tb, acc_a);
  acc_b = fma(h * ka * ta, ta, acc_b);
#endif
}

void main() {
  int lane = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
  int i = int(gl_WorkGroupID.x) * RDP_COLS - 1 + lane;
  int j0 = int(gl_WorkGroupID.y) * (LY * RDP_ROWS) + ty * RDP_ROWS - 1;  // row 0 of the set (halo)
  int k0 = int(gl_WorkGroupID.z) * RDP_CHUNK, k1 = min(k0 + RDP_CHUNK, u_dims.z);
  bool in_x = i >= 0 && i < u_dims.x;
  bool writes = in_x && lane >= 1 && lane <= RDP_COLS;
  float half_eps = 0.5 * u_params.y;
  int right = min(lane + 1, LX - 1);
  // w[(dk+1)*9 + (dj+1)*3 + di+1], symmetric in the sign of each offset
  float w[27];
  for (int q = 0; q < 27; ++q)
    w[q] = q == 13 ? 0.0 : rdp_weight(ivec3(q % 3 - 1, (q / 3) % 3 - 1, q / 9 - 1), u_voxel);

  // x + ε/2 and κ of plane k (lower) and k + 1 (upper), own and next invocation; x = 0, κ = 0
  // outside the image.
  float xl[KSET], kl[KSET], xu[KSET], ku[KSET], xlr[KSET], klr[KSET], xur[KSET], kur[KSET];
  float al[KSET], au[KSET], rl[KSET], ru[KSET];  // own sums (planes k, k+1), next one's halves
  for (int k = k0 - 1; k < k1; ++k) {
    // Upper plane k + 1 (and, on the first step, the lower plane k0 − 1 with it).
    for (int pass = (k == k0 - 1 ? 0 : 1); pass < 2; ++pass) {
      int kk = k + pass;
      bool in_z = kk >= 0 && kk < u_dims.z;
      for (int r = 0; r < KSET; ++r) {
        int j = j0 + r;
        bool ok = in_x && in_z && j >= 0 && j < u_dims.y;
        uint b = ok ? uint(i) + uint(u_dims.x) * (uint(j) + uint(u_dims.y) * uint(kk)) : 0u;
        xu[r] = (ok ? x[b] : 0.0) + half_eps;
        ku[r] = ok ? kappa[b] : 0.0;
        s_x[ty][r][lane] = xu[r];
        s_k[ty][r][lane] = ku[r];
      }
      barrier();
      for (int r = 0; r < KSET; ++r) {
        xur[r] = s_x[ty][r][right];
        kur[r] = s_k[ty][r][right];
        au[r] = 0.0;
        rl[r] = 0.0;
        ru[r] = 0.0;
      }
      barrier();
      if (pass == 0)
        for (int r = 0; r < KSET; ++r) {
          xl[r] = xu[r], kl[r] = ku[r], xlr[r] = xur[r], klr[r] = kur[r], al[r] = 0.0;
        }
    }
    for (int r = 0; r < KSET; ++r) {
      if (r + 1 < KSET) pair(xl[r], kl[r], xl[r + 1], kl[r + 1], w[16], al[r], al[r + 1]);  // (0, +1, 0)
      for (int dj = -1; dj <= 1; ++dj) {
        int q = r + dj;
        if (q < 0 || q >= KSET) continue;
        if (q == r && (r == 0 || r == KSET - 1)) continue;  // both ends in a halo row: nobody's sum
        pair(xl[r], kl[r], xlr[q], klr[q], w[14 + 3 * dj], al[r], rl[q]);   // (+1, dj, 0)
        pair(xl[r], kl[r], xu[q], ku[q], w[22 + 3 * dj], al[r], au[q]);     // (0, dj, +1)
        pair(xl[r], kl[r], xur[q], kur[q], w[23 + 3 * dj], al[r], ru[q]);   // (+1, dj, +1)
        pair(xu[r], ku[r], xlr[q], klr[q], w[23 + 3 * dj], au[r], rl[q]);   // (+1, dj, −1) from k+1
      }
    }
    for (int r = 0; r < KSET; ++r) {
      s_rl[ty][r][lane] = rl[r];
      s_ru[ty][r][lane] = ru[r];
    }
    barrier();
    if (lane > 0)
      for (int r = 0; r < KSET; ++r) {
        al[r] += s_rl[ty][r][lane - 1];
        au[r] += s_ru[ty][r][lane - 1];
      }
    if (k >= k0 && writes)
      for (int r = 1; r <= RDP_ROWS; ++r) {
        int j = j0 + r;
        if (j < u_dims.y) result[uint(i) + uint(u_dims.x) * (uint(j) + uint(u_dims.y) * uint(k))] = kl[r] * al[r];
      }
    for (int r = 0; r < KSET; ++r) {
      xl[r] = xu[r], kl[r] = ku[r], xlr[r] = xur[r], klr[r] = kur[r], al[r] = au[r];
    }
  }
}
