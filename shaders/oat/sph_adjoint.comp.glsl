#version 450 core
// oat H_sph transpose, one pass over transducers [u_q0, u_q1): an invocation per voxel sums
// Re{w[q,l]·conj(e^{−ĵ2πf_l d/c₀})}/d, w = conj(c_l)·ũ (weighted on the host), every frequency by
// recurrence re-anchored every 32 (as the cuda kernel).
layout(local_size_x = 64) in;
#include "sph.glsl"
layout(std430, binding = OAT_SPH_ADJOINT_WEIGHTED) readonly buffer Weighted { vec2 w[]; };  // Q·L
layout(std430, binding = OAT_SPH_ADJOINT_ALPHA) buffer Alpha { float alpha[]; };
uniform int u_q0, u_q1, u_voxels;

void main() {
  int n = invocation();
  if (n >= u_voxels) return;
  vec3 r = voxel_centre(n);
  float a = 0.0;
  for (int q = u_q0; q < u_q1; ++q)
    for (int p = 0; p < u_points; ++p) {
      float d = length(points[q * u_points + p].xyz - r);
      vec2 step = phasor(u_df * d);
      float sum = 0.0;
      for (int l0 = 0; l0 < u_frequencies; l0 += 32) {
        vec2 e = phasor((u_f0 + float(l0) * u_df) * d);
        int l1 = min(u_frequencies, l0 + 32);
        for (int l = l0; l < l1; ++l) {
          vec2 x = w[q * u_frequencies + l];
          sum += x.x * e.x + x.y * e.y;
          e = cmul(e, step);
        }
      }
      a += sum / d;
    }
  alpha[n] = (u_first != 0 ? 0.0 : alpha[n]) + a;
}
