// oat FBP shaders' shared declarations (fbp.comp.glsl, fbp_shared.comp.glsl): the buffers, the
// uniforms and the double-precision k̃ of the pairs next to a sample boundary (the cpu's side).
#include "bindings/oat.glsl"
layout(std430, binding = OAT_FBP_TRANSDUCERS) readonly buffer Transducers { vec4 transducers[]; };  // xyz − voxel 0
layout(std430, binding = OAT_FBP_IMAGE) writeonly buffer Image { float image[]; };
layout(std430, binding = OAT_FBP_POSITIONS) readonly buffer Positions { double positions[]; };   // the same, 3 doubles each
layout(binding = OAT_FBP_TABLE) uniform sampler2D u_table;  // (M_k, D_k), K − 1 wide, Q high
uniform ivec3 u_dims;
uniform float u_voxel, u_inv_c0dt, u_tau0, u_lin_scale, u_diff_scale, u_eps;
uniform double u_voxel_d, u_inv_c0dt_d, u_tau0_d;
uniform int u_transducers, u_width;  // Q, K − 1

// (⌊k̃⌋, k̃ − ⌊k̃⌋) of voxel v and transducer q, k̃ in double from double positions.
vec2 fbp_refine(ivec3 v, int q) {
  int b = 3 * q;
  dvec3 dd = dvec3(v) * u_voxel_d - dvec3(positions[b], positions[b + 1], positions[b + 2]);
  double ktd = sqrt(dot(dd, dd)) * u_inv_c0dt_d - u_tau0_d;
  double kfd = floor(ktd);
  return vec2(float(kfd), float(ktd - kfd));
}
