#version 450 core
// Compute-shader fp32 FMA ceiling (bench): the result is written only when it is impossible, so
// the chains are not optimised away and memory traffic is nil.
#include "bench/fma.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer O { float o[]; };
void main() {
  float r = fma_chains(float(gl_GlobalInvocationID.x & 7u));
  if (r == 12345.678) o[0] = r;
}
