#version 450 core
// oat: H_srtᵀ, the transpose of srt.comp.glsl's EXACT pass: the same work group per shell sample
// and the same patches; each patch adds area·g·w to its eight trilinear voxels. FLOAT_ATOMICS:
// float atomicAdd (GL_NV_shader_atomic_float); otherwise a compare-and-swap loop (float_add.glsl).
#ifdef FLOAT_ATOMICS
#extension GL_NV_shader_atomic_float : require
#endif
layout(local_size_x = 32) in;
#include "bindings/oat.glsl"
layout(std430, binding = OAT_SHELL_FRAMES) readonly buffer Frames { float frames[]; };
layout(std430, binding = OAT_SHELL_CAPS) readonly buffer Caps { vec2 caps[]; };
layout(std430, binding = OAT_SHELL_SUMS) readonly buffer Shells { float g[]; };
#define FLOAT_ADD_BINDING OAT_SHELL_ALPHA
#define FLOAT_ADD_NAME alpha
#include "common/float_add.glsl"
uniform vec3 u_grid0;
uniform float u_ds;
uniform ivec3 u_dims;
uniform int u_transducers, u_shells;
uniform float u_c0, u_t_min, u_dt, u_h;
#include "shell.glsl"

void scatter(vec3 p, float v) {
  vec3 gc = voxel_coord(p);
  if (!touches_grid(gc)) return;
  vec3 b = floor(gc);
  ivec3 c = ivec3(b);
  vec3 w1 = gc - b, w0 = vec3(1.0) - w1;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) {
        ivec3 n = c + ivec3(i, j, k);
        if (any(lessThan(n, ivec3(0))) || any(greaterThanEqual(n, u_dims))) continue;
        float_add(n.x + u_dims.x * (n.y + u_dims.y * n.z),
                  ((i == 0 ? w0.x : w1.x) * (j == 0 ? w0.y : w1.y) * (k == 0 ? w0.z : w1.z)) * v);
      }
}

void main() {
  int sample_id = int(gl_WorkGroupID.x + gl_NumWorkGroups.x * gl_WorkGroupID.y);
  int lane = int(gl_LocalInvocationID.x);
  if (sample_id >= u_transducers * u_shells) return;
  float value = g[sample_id];
  if (value == 0.0) return;
  int q = sample_id / u_shells, m = sample_id % u_shells;
  Frame f = load_frame(q);
  Cap c = shell_cap(sample_id, u_c0 * (u_t_min + (float(m) - 1.0) * u_dt), u_h);
  for (int i = 0; i < c.n_theta; ++i) {
    Ring r = shell_ring(c, i);
    float v = r.area * value;
    for (int j = lane; j < r.n_phi; j += 32) scatter(shell_point(f, c, r, j), v);
  }
}
