#version 450 core
// strip: one ML-EM iteration ([Bialas2015] eq. (5)) at warp granularity: a work group of 32 shares one
// event, lanes stride over its bounding box, P·ρ stays in a per-lane cache for the second pass,
// the denominator is reduced with subgroupAdd (SUBGROUP, 32-wide subgroups) or in shared memory.
#ifdef FLOAT_ATOMICS
#extension GL_NV_shader_atomic_float : require
#endif
#ifdef SUBGROUP
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#ifndef CACHE
#define CACHE 32
#endif
layout(local_size_x = 32) in;
#include "kernel.glsl"

shared float s_den[32];

float warp_sum(float v, int lane) {
#ifdef SUBGROUP
  return subgroupAdd(v);
#else
  s_den[lane] = v;
  barrier();
  for (int off = 16; off > 0; off >>= 1) {
    if (lane < off) s_den[lane] += s_den[lane + off];
    barrier();
  }
  float total = s_den[0];
  barrier();  // everyone has read s_den[0] before the next event overwrites it
  return total;
#endif
}

void main() {
  int lane = int(gl_LocalInvocationID.x);
  for (uint e = gl_WorkGroupID.x; e < u_count; e += gl_NumWorkGroups.x) {  // uniform in the group
    Frame f = make_frame(events[3 * e], events[3 * e + 1], events[3 * e + 2]);
    ivec4 b = pixel_box(f);
    int nbz = b.w - b.z + 1;
    int nb = (b.y >= b.x && nbz > 0) ? (b.y - b.x + 1) * nbz : 0;
    float w[CACHE];
    float den = 0.0;
    for (int c = 0; c < CACHE; ++c) {
      w[c] = 0.0;
      int p = lane + 32 * c;
      if (p < nb) {
        int j = b.x + p / nbz, k = b.z + p % nbz;
        float dy = u_grid.x + float(j) * u_grid.z - f.y, dz = u_grid.y + float(k) * u_grid.w - f.z;
        float q = ellipse_form(f, dy, dz);
        if (q <= u_cut) w[c] = kernel_value(f, dy, dz, q) * rho[j * u_dims.y + k];
        den += w[c];
      }
    }
    for (int p = lane + 32 * CACHE; p < nb; p += 32) {
      int j = b.x + p / nbz, k = b.z + p % nbz;
      float dy = u_grid.x + float(j) * u_grid.z - f.y, dz = u_grid.y + float(k) * u_grid.w - f.z;
      float q = ellipse_form(f, dy, dz);
      if (q <= u_cut) den += kernel_value(f, dy, dz, q) * rho[j * u_dims.y + k];
    }
    den = warp_sum(den, lane);
    if (!(den > 0.0)) continue;
    float inv = 1.0 / den;
    for (int c = 0; c < CACHE; ++c) {
      int p = lane + 32 * c;
      if (w[c] > 0.0) float_add((b.x + p / nbz) * u_dims.y + b.z + p % nbz, w[c] * inv);
    }
    for (int p = lane + 32 * CACHE; p < nb; p += 32) {
      int j = b.x + p / nbz, k = b.z + p % nbz;
      float dy = u_grid.x + float(j) * u_grid.z - f.y, dz = u_grid.y + float(k) * u_grid.w - f.z;
      float q = ellipse_form(f, dy, dz);
      if (q <= u_cut) float_add(j * u_dims.y + k, kernel_value(f, dy, dz, q) * rho[j * u_dims.y + k] * inv);
    }
  }
}
