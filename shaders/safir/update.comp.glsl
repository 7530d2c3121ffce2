#version 450 core
// safir: the ML-EM update of eq. (10), f_j ← f_j · c_j / s_j (0 where s_j = 0); c_j is cleared
// behind it, so the next iteration (an OSEM subset) accumulates into zeros without a clear, and so
// is the window's ȳ (values[0, u_values)) for its tiled forward pass at the next visit.
layout(local_size_x = 256) in;
#include "bindings/safir.glsl"
layout(std430, binding = SAFIR_IMAGE) buffer Image { float f[]; };
layout(std430, binding = SAFIR_ACC) buffer Acc { float c[]; };
layout(std430, binding = SAFIR_SENSITIVITY) readonly buffer Sens { float s[]; };
layout(std430, binding = SAFIR_VALUES) writeonly buffer Values { float values[]; };
uniform uint u_voxels, u_values;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint j = gl_GlobalInvocationID.x; j < max(u_voxels, u_values); j += stride) {
    if (j < u_voxels) {
      f[j] = s[j] > 0.0 ? f[j] * c[j] / s[j] : 0.0;
      c[j] = 0.0;
    }
    if (j < u_values) values[j] = 0.0;
  }
}
