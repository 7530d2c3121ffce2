#version 450 core
// safir: the ML-EM update of eq. (10), f_j ← f_j · c_j / s_j (0 where s_j = 0); c_j is cleared
// behind it, so the next iteration (an OSEM subset) accumulates into zeros without a clear.
layout(local_size_x = 256) in;
#include "bindings/safir.glsl"
layout(std430, binding = SAFIR_IMAGE) buffer Image { float f[]; };
layout(std430, binding = SAFIR_ACC) buffer Acc { float c[]; };
layout(std430, binding = SAFIR_SENSITIVITY) readonly buffer Sens { float s[]; };
uniform uint u_voxels;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint j = gl_GlobalInvocationID.x; j < u_voxels; j += stride) {
    f[j] = s[j] > 0.0 ? f[j] * c[j] / s[j] : 0.0;
    c[j] = 0.0;
  }
}
