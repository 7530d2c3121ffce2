#version 450 core
// The relative difference prior ([Nuyts2002]) as one 3×3×3 stencil pass, one invocation per
// voxel gathering its 26 neighbours (no atomics): TERM 0 the voxel's share of the value
// (Σ_k w κ_j κ_k f, halved and summed on the host), 1 the gradient, 2 the Hessian diagonal.
layout(local_size_x = 64) in;
#include "bindings/pet.glsl"
#include "rdp.glsl"

layout(std430, binding = PET_IMAGE) readonly buffer Image { float x[]; };
layout(std430, binding = PET_KAPPA) readonly buffer Kappa { float kappa[]; };
layout(std430, binding = PET_OUT) writeonly buffer Out { float result[]; };

uniform ivec3 u_dims;
uniform vec3 u_voxel;   // voxel sides (mm)
uniform vec2 u_params;  // γ, ε

void main() {
  uint n = uint(u_dims.x) * uint(u_dims.y) * uint(u_dims.z);
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint a = gl_GlobalInvocationID.x; a < n; a += stride) {
    float ka = kappa[a];
    if (ka == 0.0) {
      result[a] = 0.0;
      continue;
    }
    int i = int(a % uint(u_dims.x));
    int j = int((a / uint(u_dims.x)) % uint(u_dims.y));
    int k = int(a / (uint(u_dims.x) * uint(u_dims.y)));
    float xa = x[a], sum = 0.0;
    for (int dk = -1; dk <= 1; ++dk)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) {
          if (di == 0 && dj == 0 && dk == 0) continue;
          ivec3 q = ivec3(i + di, j + dj, k + dk);
          if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, u_dims))) continue;
          uint b = uint(q.x) + uint(u_dims.x) * (uint(q.y) + uint(u_dims.y) * uint(q.z));
          float kb = kappa[b];
          if (kb == 0.0) continue;
          float w = rdp_weight(ivec3(di, dj, dk), u_voxel) * kb;
#if TERM == 0
          sum += w * rdp_value(xa, x[b], u_params.x, u_params.y);
#elif TERM == 1
          sum += w * rdp_derivative(xa, x[b], u_params.x, u_params.y);
#else
          sum += w * rdp_second_derivative(xa, x[b], u_params.x, u_params.y);
#endif
        }
    result[a] = ka * sum;
  }
}
