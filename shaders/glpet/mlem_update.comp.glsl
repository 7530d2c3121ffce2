#version 450 core
// [Toth2010] eq. (3): x_v ← x_v·b_v/s_v where s_v > 0, else 0 (both GL backends); KEEP 1: x_v
// kept where s_v = 0 (a subset's update: voxels its pairs do not see keep their value).
#include "bindings/glpet.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = GLPET_UPDATE_IMAGE) buffer X { float x[]; };
layout(std430, binding = GLPET_UPDATE_BACK) readonly buffer B { float b[]; };
layout(std430, binding = GLPET_UPDATE_SENSITIVITY) readonly buffer S { float s[]; };
uniform uint u_n;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= u_n) return;
  float sv = s[i];
#if defined(KEEP) && KEEP
  if (sv > 0.0) x[i] = x[i] * b[i] / sv;
#else
  x[i] = sv > 0.0 ? x[i] * (b[i] / sv) : 0.0;
#endif
}
