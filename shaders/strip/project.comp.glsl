#version 450 core
// strip: the system matrix of [Bialas2015] eq. (7) on its own, one invocation per event over its
// bounding box with the ellipse test (the thread kernel's walk). FORWARD defined:
// values[e] = Σ_i P(ẽ_e|i) x_i (x bound as rho). Otherwise, back: rho_new_i += Σ_e P(ẽ_e|i) values[e].
#ifdef FLOAT_ATOMICS
#extension GL_NV_shader_atomic_float : require
#endif
layout(local_size_x = 64) in;
#include "kernel.glsl"

layout(std430, binding = STRIP_VALUES) buffer Values { float values[]; };  // one per event

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint e = gl_GlobalInvocationID.x; e < u_count; e += stride) {
    Frame f = make_frame(events[3 * e], events[3 * e + 1], events[3 * e + 2]);
    ivec4 b = pixel_box(f);
#ifdef FORWARD
    float sum = 0.0;
#else
    float w = values[e];
    if (w == 0.0) continue;
#endif
    for (int j = b.x; j <= b.y; ++j) {
      float dy = u_grid.x + float(j) * u_grid.z - f.y;
      for (int k = b.z; k <= b.w; ++k) {
        float dz = u_grid.y + float(k) * u_grid.w - f.z;
        float q = ellipse_form(f, dy, dz);
        if (q > u_cut) continue;
#ifdef FORWARD
        sum += kernel_value(f, dy, dz, q) * rho[j * u_dims.y + k];
#else
        float_add(j * u_dims.y + k, kernel_value(f, dy, dz, q) * w);
#endif
      }
    }
#ifdef FORWARD
    values[e] = sum;
#endif
  }
}
