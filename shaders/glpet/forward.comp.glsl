#version 450 core
// glpet gl-compute forward projection ([Toth2010] eq. (2), §III shooting): one work group per
// voxel, one invocation per primary macropixel (R×R lines); runs of lines that share a LOR
// are pre-summed and scattered with one float atomicAdd.
#extension GL_NV_shader_atomic_float : require
layout(local_size_x = 128) in;
#include "line_set.glsl"

layout(std430, binding = GLPET_IMAGE) readonly buffer X { float x[]; };
layout(std430, binding = GLPET_LORS) buffer Y { float ytilde[]; };
uniform uint u_first_voxel;
uniform uint u_voxel_count;

void main() {
  uint vox = u_first_voxel + gl_WorkGroupID.x;
  if (vox >= u_voxel_count) return;
  float xv = x[vox];
  if (xv == 0.0) return;  // exact: the voxel adds nothing
  float scale = xv / float(u_N);
  ivec3 ijk = voxel_ijk(vox);
  int macro = u_na * u_nt;
  for (int n = 0; n < u_N; ++n) {
    Frame f = make_frame(sample_position(ijk, n));
    for (int mp = int(gl_LocalInvocationID.x); mp < macro; mp += int(gl_WorkGroupSize.x)) {
      int p = mp % u_na, q = mp / u_na;
      uint cur = 0xffffffffu;
      float acc = 0.0;
      for (int sy = 0; sy < u_R; ++sy)
        for (int sx = 0; sx < u_R; ++sx) {
          uint lor;
          float w;
          ivec2 rs;
          if (!trace(f, p * u_R + sx, q * u_R + sy, lor, w, rs)) continue;
          if (lor != cur) {
            if (cur != 0xffffffffu) atomicAdd(ytilde[u_lor_offset + cur], acc * scale);
            cur = lor;
            acc = 0.0;
          }
          acc += w;
        }
      if (cur != 0xffffffffu) atomicAdd(ytilde[u_lor_offset + cur], acc * scale);
    }
  }
}
