#version 450 core
// glpet gl-compute: the correspondence image ([Toth2010] §II.B) of one voxel sample,
// (r, s, a, 1) per pixel, (0, 0, 0, 0) where the line misses; row-major, X fastest.
layout(local_size_x = 64) in;
#include "line_set.glsl"

layout(std430, binding = GLPET_CORRESPONDENCE_IMAGE) writeonly buffer Out { vec4 image[]; };
uniform dvec3 u_v;

void main() {
  int W = u_R * u_na, H = u_R * u_nt;
  int i = int(gl_GlobalInvocationID.x);
  if (i >= W * H) return;
  Frame f = make_frame(u_v);
  uint lor;
  float w;
  ivec2 rs;
  image[i] = trace(f, i % W, i / W, lor, w, rs) ? vec4(vec2(rs), w, 1.0) : vec4(0.0);
}
