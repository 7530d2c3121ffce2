#version 450 core
// strip: one ML-EM iteration ([Bialas2015] eq. (5)) at thread granularity: one invocation per event,
// two passes over its bounding box (no cache), as the CUDA thread kernel.
#ifdef FLOAT_ATOMICS
#extension GL_NV_shader_atomic_float : require
#endif
layout(local_size_x = 64) in;
#include "kernel.glsl"

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint e = gl_GlobalInvocationID.x; e < u_count; e += stride) {
    Frame f = make_frame(events[3 * e], events[3 * e + 1], events[3 * e + 2]);
    ivec4 b = pixel_box(f);
    float den = 0.0;
    for (int j = b.x; j <= b.y; ++j) {
      float dy = u_grid.x + float(j) * u_grid.z - f.y;
      for (int k = b.z; k <= b.w; ++k) {
        float dz = u_grid.y + float(k) * u_grid.w - f.z;
        float q = ellipse_form(f, dy, dz);
        if (q <= u_cut) den += kernel_value(f, dy, dz, q) * rho[j * u_dims.y + k];
      }
    }
    if (!(den > 0.0)) continue;
    float inv = 1.0 / den;
    for (int j = b.x; j <= b.y; ++j) {
      float dy = u_grid.x + float(j) * u_grid.z - f.y;
      for (int k = b.z; k <= b.w; ++k) {
        float dz = u_grid.y + float(k) * u_grid.w - f.z;
        float q = ellipse_form(f, dy, dz);
        if (q <= u_cut) float_add(j * u_dims.y + k, kernel_value(f, dy, dz, q) * rho[j * u_dims.y + k] * inv);
      }
    }
  }
}
