#version 450 core
// safir: the ML-EM update of eq. (10), f_j ← f_j · c_j / s_j (0 where s_j = 0).
layout(local_size_x = 256) in;
layout(std430, binding = 2) buffer Image { float f[]; };
layout(std430, binding = 4) readonly buffer Acc { float c[]; };
layout(std430, binding = 5) readonly buffer Sens { float s[]; };
uniform uint u_voxels;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint j = gl_GlobalInvocationID.x; j < u_voxels; j += stride) f[j] = s[j] > 0.0 ? f[j] * c[j] / s[j] : 0.0;
}
