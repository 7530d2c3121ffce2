#version 450 core
// atomicAdd ceiling (bench): u_n adds per invocation on hashed counters; FLOAT_ATOMICS 1 adds
// floats (GL_NV_shader_atomic_float, as the gl-compute forward scatter), 0 uints.
#if FLOAT_ATOMICS
#extension GL_NV_shader_atomic_float : require
#define COUNTER float
#define ONE 1.0
#else
#define COUNTER uint
#define ONE 1u
#endif
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer C { COUNTER c[]; };
uniform int u_n;
uniform int u_counters;
void main() {
  uint h = gl_GlobalInvocationID.x * 2654435761u;
  for (int i = 0; i < u_n; ++i) { atomicAdd(c[(h + uint(i) * 40503u) % uint(u_counters)], ONE); }
}
