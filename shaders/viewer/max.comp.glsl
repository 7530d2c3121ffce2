#version 450 core
// Viewer: stats[u_slot] = max(0, max_i data[i]) as float bits (non-negative floats order
// like their bits), for the colour windows; stays on the GPU.
layout(local_size_x = 256) in;
#include "bindings/viewer.glsl"
layout(std430, binding = VIEWER_DATA) readonly buffer Data { float data[]; };
layout(std430, binding = VIEWER_STATS) buffer Stats { uint stats[]; };
uniform uint u_n;
uniform uint u_slot;

void main() {
  float m = 0.0;
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < u_n; i += stride)
    if (data[i] > m) m = data[i];
  atomicMax(stats[u_slot], floatBitsToUint(m));
}
