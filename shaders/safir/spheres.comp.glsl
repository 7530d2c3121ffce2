#version 450 core
// safir: sphere and shell sums of the image analysis ([Locans2017] §5.3.2, eqs. 13–14), one
// invocation per voxel centre, over the precomputed offsets (compute/safir/analysis.hpp).
layout(local_size_x = 64) in;
#include "bindings/safir.glsl"
layout(std430, binding = SAFIR_IMAGE) readonly buffer Image { float f[]; };
layout(std430, binding = SAFIR_OFFSETS) readonly buffer Offsets { ivec4 offsets[]; };  // di, dj, dk, shell
layout(std430, binding = SAFIR_SUMS) writeonly buffer Sums { vec4 sums[]; };        // inner, shell, n_inner, n_shell
uniform ivec3 u_n;
uniform int u_offsets;

void main() {
  int v = int(gl_GlobalInvocationID.x);
  if (v >= u_n.x * u_n.y * u_n.z) return;
  ivec3 c = ivec3(v % u_n.x, (v / u_n.x) % u_n.y, v / (u_n.x * u_n.y));
  vec4 r = vec4(0.0);
  for (int o = 0; o < u_offsets; ++o) {
    ivec4 d = offsets[o];
    ivec3 p = c + d.xyz;
    if (any(lessThan(p, ivec3(0))) || any(greaterThanEqual(p, u_n))) continue;
    float x = f[p.x + u_n.x * (p.y + u_n.y * p.z)];
    if (d.w == 0) {
      r.x += x;
      r.z += 1.0;
    } else {
      r.y += x;
      r.w += 1.0;
    }
  }
  sums[v] = r;
}
