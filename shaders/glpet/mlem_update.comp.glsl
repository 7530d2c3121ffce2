#version 450 core
// seed 004 eq. (3): x_v ← x_v·b_v/s_v where s_v > 0, else 0 (both GL backends).
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) readonly buffer S { float s[]; };
uniform uint u_n;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= u_n) return;
  float sv = s[i];
  x[i] = sv > 0.0 ? x[i] * (b[i] / sv) : 0.0;
}
