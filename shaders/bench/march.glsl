// σ_t march of one line (bench), as the glpet passes do it (shaders/glpet/correspondence.frag.glsl,
// line_set.glsl): `u_samples` trilinear σ_t samples along a line through voxel v. Line
// `line` = tile·16384 + pixel: the tile picks v (consecutive voxels, x fastest, from the
// central z-slice: the order the passes batch them in), the pixel of a 128×128 tile a direction
// within ±22° of z (the default scene's fan), and the samples are spread evenly over the grid's
// z extent (the part of a line that fetches: samples outside the grid read 0 without a fetch in
// the real passes too).
// MODE 0: one hardware-filtered texture() of a sampler3D ([Toth2010]'s way);
// MODE 1: 8 texelFetch of a sampler3D + fp32 trilinear (the `gl` contract);
// MODE 2: 8 loads from an SSBO + fp32 trilinear (the `gl-compute` / `cuda` contract).
uniform ivec3 u_dims;
uniform int u_samples;
#if MODE == 0
uniform sampler3D u_sigma;
float sigma_at(vec3 g) { return texture(u_sigma, (g + 0.5) / vec3(u_dims)).r; }
#else
#if MODE == 1
uniform sampler3D u_sigma;
float sigma_fetch(ivec3 c) {
  if (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, u_dims))) return 0.0;
  return texelFetch(u_sigma, c, 0).r;
}
#else
layout(std430, binding = 0) readonly buffer Sigma { float sigma[]; };
float sigma_fetch(ivec3 c) {
  if (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, u_dims))) return 0.0;
  return sigma[uint(c.x) + uint(u_dims.x) * (uint(c.y) + uint(u_dims.y) * uint(c.z))];
}
#endif
#include "common/trilinear.glsl"
#endif
float march(uint line) {
  uint tile = line >> 14u, pix = line & 16383u;
  uvec3 d = uvec3(u_dims);
  vec3 v = vec3(float(tile % d.x), float((tile / d.x) % d.y), float((d.z / 2u + tile / (d.x * d.y)) % d.z));
  vec3 dir = vec3((vec2(float(pix & 127u), float(pix >> 7u)) + 0.5) / 128.0 * 0.8 - 0.4, 1.0);
  float z0 = -0.5, z1 = float(u_dims.z) - 0.5, sum = 0.0;
  for (int k = 0; k < u_samples; ++k) {
    float z = mix(z0, z1, (float(k) + 0.5) / float(u_samples));
    sum += sigma_at(v + dir * (z - v.z));
  }
  return sum;
}
