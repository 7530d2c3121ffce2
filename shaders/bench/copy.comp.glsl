#version 450 core
// Compute copy ceiling (bench): u_n vec4s read and written, grid-stride loop.
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer A { vec4 a[]; };
layout(std430, binding = 1) writeonly buffer B { vec4 b[]; };
uniform uint u_n;
void main() {
  for (uint i = gl_GlobalInvocationID.x; i < u_n; i += gl_NumWorkGroups.x * 256u) b[i] = a[i];
}
