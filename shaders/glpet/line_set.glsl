// glpet line set (docs/glpet.md §2, [Toth2010] §II) for the compute twins: line geometry in
// double (the same secondary detectors as the cpu reference), ray marching in fp32 with
// trilinear σ_t from 8 plain loads (common/trilinear.glsl, glpet/line_math.glsl).
// Uniforms describe ONE module pair; index 0/1 = the pair's first/second module.
#include "bindings/glpet.glsl"
uniform dvec3 u_centre[2];
uniform dvec3 u_normal[2];
uniform dvec3 u_axis_a[2];
uniform dvec3 u_axis_t[2];
uniform dvec3 u_corner[2];
uniform dvec2 u_pitch[2];
uniform int u_na;            // N_a (both modules)
uniform int u_nt;            // N_t
uniform int u_R;
uniform int u_K;
uniform int u_N;
uniform uint u_lor_offset;   // of the pair's atlas in the concatenated LOR vector
uniform dvec3 u_grid_origin; // centre of voxel (0,0,0), mm
uniform dvec3 u_grid_voxel;  // mm
uniform ivec3 u_dims;
uniform int u_sigma_empty;   // 1: σ_t ≡ 0, T = 1

layout(std430, binding = GLPET_SIGMA) readonly buffer Sigma { float sigma[]; };      // x fastest
layout(std430, binding = GLPET_OFFSETS) readonly buffer Offsets { double offsets[]; }; // N × 3, voxel units

const double kTwoPi = 6.283185307179586LF;

ivec3 voxel_ijk(uint vox) {
  uint nx = uint(u_dims.x), ny = uint(u_dims.y);
  return ivec3(int(vox % nx), int((vox / nx) % ny), int(vox / (nx * ny)));
}

// [Toth2010] eq. (4): sample n of voxel ijk (glpet::sample_position).
dvec3 sample_position(ivec3 ijk, int n) {
  dvec3 off = dvec3(offsets[3 * n], offsets[3 * n + 1], offsets[3 * n + 2]);
  return u_grid_origin + (dvec3(ijk) + off) * u_grid_voxel;
}

float sigma_fetch(ivec3 c) {
  if (c.x < 0 || c.y < 0 || c.z < 0 || c.x >= u_dims.x || c.y >= u_dims.y || c.z >= u_dims.z) return 0.0;
  return sigma[uint(c.x) + uint(u_dims.x) * (uint(c.y) + uint(u_dims.y) * uint(c.z))];
}

#include "common/trilinear.glsl"
#include "line_math.glsl"

// [Toth2010] §II.B: T = exp(−Σ_k σ_t(y(t_k))·|y1−y2|/K), t_k = (k+½)/K, y(t) = y2 + t(y1−y2);
// samples outside the support of σ_t (grid grown by one voxel) skipped, as on the cpu.
float transmission(dvec3 y1, dvec3 y2) {
  if (u_sigma_empty != 0) return 1.0;
  dvec3 inv = 1.0LF / u_grid_voxel;
  dvec3 g0 = (y2 - u_grid_origin) * inv;  // continuous voxel index of y2 (voxel centres at integers)
  dvec3 dg = (y1 - y2) * inv;
  int k0, k1;
  if (!sample_range(g0, dg, u_dims, u_K, k0, k1)) return 1.0;
  float sum = midpoint_sum(vec3(g0), vec3(dg), k0, k1, u_K);
  double L = length(y1 - y2);
  return exp(-sum * float(L / double(u_K)));
}

// Per-(pair, sample) frame (glpet::Correspondence).
struct Frame {
  dvec3 v;
  int primary;        // module farther from v; 0 on a tie
  double sec_plane;   // (c2 − v)·n2
  double pixel_area;  // ΔA = pitch_a·pitch_t/R²
};

Frame make_frame(dvec3 v) {
  Frame f;
  f.v = v;
  double d0 = abs(dot(v - u_centre[0], u_normal[0]));
  double d1 = abs(dot(v - u_centre[1], u_normal[1]));
  f.primary = d1 > d0 ? 1 : 0;
  int m2 = 1 - f.primary;
  f.sec_plane = dot(u_centre[m2] - v, u_normal[m2]);
  f.pixel_area = u_pitch[f.primary].x * u_pitch[f.primary].y / double(u_R * u_R);
  return f;
}

// The line of pixel (X, Y) (glpet::Correspondence::trace). Returns false on a miss.
// lor: index inside the pair's atlas; w: a = T·Δω/(2π); rs: secondary detector.
bool trace(Frame f, int X, int Y, out uint lor, out float w, out ivec2 rs) {
  lor = 0u;
  w = 0.0;
  rs = ivec2(-1);
  int m1 = f.primary, m2 = 1 - f.primary;
  dvec3 du = u_axis_a[m1] * (u_pitch[m1].x / double(u_R));
  dvec3 dv = u_axis_t[m1] * (u_pitch[m1].y / double(u_R));
  dvec3 y1 = u_corner[m1] + (du * (double(X) + 0.5LF) + dv * (double(Y) + 0.5LF));
  dvec3 d = y1 - f.v;
  double dn = dot(d, u_normal[m2]);
  if (dn == 0.0LF) return false;
  double lambda = f.sec_plane / dn;
  if (!(lambda < 0.0LF)) return false;  // the secondary must lie beyond v ([Toth2010]'s mirroring)
  dvec3 y2 = f.v + d * lambda;
  dvec3 rel = y2 - u_corner[m2];
  double a = dot(rel, u_axis_a[m2]) / u_pitch[m2].x, t = dot(rel, u_axis_t[m2]) / u_pitch[m2].y;
  if (!(a >= 0.0LF && t >= 0.0LF && a < double(u_na) && t < double(u_nt))) return false;
  int r = min(int(a), u_na - 1), s = min(int(t), u_nt - 1);
  int p = X / u_R, q = Y / u_R;
  int i0 = m1 == 0 ? p : r, j0 = m1 == 0 ? q : s;
  int i1 = m1 == 0 ? r : p, j1 = m1 == 0 ? s : q;
  lor = uint(j0 * u_nt + j1) * uint(u_na * u_na) + uint(i0 * u_na + i1);
  // Δω = ΔA·cosθ/|y1 − v|² ([Toth2010] §II.B, Fig. 4), a = T·Δω/(2π) ([Toth2010] eq. (5)).
  double d2 = dot(d, d);
  double cos_t = abs(dot(d, u_normal[m1])) / sqrt(d2);
  double domega = f.pixel_area * cos_t / d2;
  w = float(domega / kTwoPi) * transmission(y1, y2);
  rs = ivec2(r, s);
  return true;
}
