// glpet line math for every GLSL pass (docs/glpet.md §2, [Toth2010] §II.B), the GLSL twin of
// compute/glpet/line_math.hpp: which midpoint samples can see σ_t, and their sum.
// Needs `float sigma_at(vec3 g)` (common/trilinear.glsl, or the hardware-filtered variant).

// The segment g(t) = g0 + t·dg (continuous voxel index, voxel centres at integers) against the
// support of σ_t (g ∈ (−1, n) per axis): the samples t_k = (k+½)/K, k0 ≤ k ≤ k1, that can be
// non-zero; false when none can (T = 1). Double for the compute twins (same skipped samples as
// the cpu), float for the raster pass, whose end points are fp32 varyings anyway.
bool sample_range(dvec3 g0, dvec3 dg, ivec3 n, int K, out int k0, out int k1) {
  k0 = 0;
  k1 = -1;
  double t0 = 0.0LF, t1 = 1.0LF;
  for (int a = 0; a < 3; ++a) {
    if (dg[a] == 0.0LF) {
      if (g0[a] <= -1.0LF || g0[a] >= double(n[a])) return false;
      continue;
    }
    double ta = (-1.0LF - g0[a]) / dg[a], tb = (double(n[a]) - g0[a]) / dg[a];
    if (ta > tb) { double s = ta; ta = tb; tb = s; }
    t0 = max(t0, ta);
    t1 = min(t1, tb);
  }
  if (t0 >= t1) return false;
  k0 = max(0, int(floor(t0 * double(K) - 0.5LF)));
  k1 = min(K - 1, int(ceil(t1 * double(K) - 0.5LF)));
  return true;
}

bool sample_range(vec3 g0, vec3 dg, ivec3 n, int K, out int k0, out int k1) {
  k0 = 0;
  k1 = -1;
  float t0 = 0.0, t1 = 1.0;
  for (int a = 0; a < 3; ++a) {
    if (dg[a] == 0.0) {
      if (g0[a] <= -1.0 || g0[a] >= float(n[a])) return false;
      continue;
    }
    float ta = (-1.0 - g0[a]) / dg[a], tb = (float(n[a]) - g0[a]) / dg[a];
    t0 = max(t0, min(ta, tb));
    t1 = min(t1, max(ta, tb));
  }
  if (t0 >= t1) return false;
  k0 = max(0, int(floor(t0 * float(K) - 0.5)));
  k1 = min(K - 1, int(ceil(t1 * float(K) - 0.5)));
  return true;
}

// Σ_k σ_t(g0 + t_k·dg), k0 ≤ k ≤ k1, in fp32 ([Toth2010] §II.B midpoint rule); T = exp(−sum·|y1−y2|/K).
float midpoint_sum(vec3 g0, vec3 dg, int k0, int k1, int K) {
  float sum = 0.0;
  for (int k = k0; k <= k1; ++k) sum += sigma_at(g0 + ((float(k) + 0.5) / float(K)) * dg);
  return sum;
}
