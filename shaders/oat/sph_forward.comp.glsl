#version 450 core
// oat H_sph forward, one pass over voxels [u_v0, u_v1): an invocation per (transducer, group of
// F frequencies) sums αₙ e^{−ĵ2πf_l d/c₀}/d over the face points and voxels, the F phases by
// recurrence (one complex multiply each). The host multiplies by c_l = p̃₀(f_l)/(2πP) after the
// last pass; passes split the voxels so software GL's loop limit is never reached.
layout(local_size_x = 64) in;
#include "sph.glsl"
layout(std430, binding = OAT_SPH_FORWARD_ALPHA) readonly buffer Alpha { float alpha[]; };
layout(std430, binding = OAT_SPH_FORWARD_SUMS) buffer Sums { vec2 sums[]; };  // Q·L
uniform int u_v0, u_v1;
#define F 8

void main() {
  int lanes = (u_frequencies + F - 1) / F;
  int id = invocation();
  if (id >= u_transducers * lanes) return;
  int q = id / lanes, lbase = (id % lanes) * F;
  vec2 s[F];
  for (int j = 0; j < F; ++j) s[j] = vec2(0.0);
  float f_first = u_f0 + float(lbase) * u_df;
  for (int p = 0; p < u_points; ++p) {
    vec3 sp = points[q * u_points + p].xyz;
    for (int n = u_v0; n < u_v1; ++n) {
      float a = alpha[n];
      if (a == 0.0) continue;
      float d = length(sp - voxel_centre(n));
      vec2 e = phasor(f_first * d), step = phasor(u_df * d);
      float w = a / d;
      for (int j = 0; j < F; ++j) {
        s[j] += w * e;
        e = cmul(e, step);
      }
    }
  }
  for (int j = 0; j < F; ++j) {
    int l = lbase + j;
    if (l >= u_frequencies) break;
    int i = q * u_frequencies + l;
    sums[i] = (u_first != 0 ? vec2(0.0) : sums[i]) + s[j];
  }
}
