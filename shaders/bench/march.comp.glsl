#version 450 core
// σ_t march ceiling, compute side (bench): one line per invocation; MODE 2 (SSBO loads).
layout(local_size_x = 128) in;
layout(std430, binding = 1) buffer O { float o[]; };
#include "bench/march.glsl"
void main() {
  float s = march(gl_GlobalInvocationID.x);
  if (s < -1.0) o[0] = s;
}
