#version 450 core
// oat: H_srt ([Wang2013] "Interpolation model"): one work group of 32 invocations per shell sample
// (q, m), the invocations over each ring's patches, a shared-memory sum at the end. EXACT: fp32
// trilinear weights over the α SSBO (kernel_math trilinear_visit, the transpose of the scatter
// pass); otherwise the texture unit's trilinear filter of α in a 3D texture (border 0).
layout(local_size_x = 32) in;
#include "bindings/oat.glsl"
layout(std430, binding = OAT_SHELL_FRAMES) readonly buffer Frames { float frames[]; };
layout(std430, binding = OAT_SHELL_CAPS) readonly buffer Caps { vec2 caps[]; };
layout(std430, binding = OAT_SHELL_ALPHA) readonly buffer Alpha { float alpha[]; };
layout(std430, binding = OAT_SHELL_SUMS) writeonly buffer Shells { float g[]; };
uniform vec3 u_grid0;
uniform float u_ds;
uniform ivec3 u_dims;
uniform int u_transducers, u_shells;  // Q, M = K + 2
uniform float u_c0, u_t_min, u_dt, u_h;
layout(binding = OAT_VOLUME) uniform sampler3D u_volume;
#include "shell.glsl"

shared float partial[32];

float alpha_at(ivec3 c) {
  if (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, u_dims))) return 0.0;
  return alpha[c.x + u_dims.x * (c.y + u_dims.y * c.z)];
}

float trilinear(vec3 p) {
  vec3 gc = voxel_coord(p);
#ifdef EXACT
  if (!touches_grid(gc)) return 0.0;
  vec3 b = floor(gc);
  ivec3 c = ivec3(b);
  vec3 w1 = gc - b, w0 = vec3(1.0) - w1;
  float s = 0.0;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i)
        s += ((i == 0 ? w0.x : w1.x) * (j == 0 ? w0.y : w1.y) * (k == 0 ? w0.z : w1.z)) * alpha_at(c + ivec3(i, j, k));
  return s;
#else
  return texture(u_volume, (gc + vec3(0.5)) / vec3(u_dims)).r;
#endif
}

void main() {
  int sample_id = int(gl_WorkGroupID.x + gl_NumWorkGroups.x * gl_WorkGroupID.y);
  int lane = int(gl_LocalInvocationID.x);
  bool valid = sample_id < u_transducers * u_shells;
  float sum = 0.0;
  if (valid) {
    int q = sample_id / u_shells, m = sample_id % u_shells;
    Frame f = load_frame(q);
    Cap c = shell_cap(sample_id, u_c0 * (u_t_min + (float(m) - 1.0) * u_dt), u_h);
    for (int i = 0; i < c.n_theta; ++i) {
      Ring r = shell_ring(c, i);
      float ring = 0.0;
      for (int j = lane; j < r.n_phi; j += 32) ring += trilinear(shell_point(f, c, r, j));
      sum += r.area * ring;
    }
  }
  partial[lane] = sum;
  barrier();
  for (int o = 16; o > 0; o >>= 1) {
    if (lane < o) partial[lane] += partial[lane + o];
    barrier();
  }
  if (valid && lane == 0) g[sample_id] = partial[0];
}
