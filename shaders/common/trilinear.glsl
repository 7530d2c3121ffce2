// σ_t at continuous voxel index g by fp32 trilinear interpolation of the includer's
// sigma_fetch(ivec3) (0 outside the grid), zero outside the grid grown by one voxel: the
// numerical contract of docs/glpet.md §2 (not the texture unit's fixed-point filter weights).
// Needs `uniform ivec3 u_dims` and `float sigma_fetch(ivec3)` declared before the include.
float sigma_at(vec3 g) {
  if (any(lessThanEqual(g, vec3(-1.0))) || any(greaterThanEqual(g, vec3(u_dims)))) return 0.0;
  vec3 g0 = floor(g);
  ivec3 c = ivec3(g0);
  vec3 f = g - g0;
  float c00 = mix(sigma_fetch(c), sigma_fetch(c + ivec3(1, 0, 0)), f.x);
  float c10 = mix(sigma_fetch(c + ivec3(0, 1, 0)), sigma_fetch(c + ivec3(1, 1, 0)), f.x);
  float c01 = mix(sigma_fetch(c + ivec3(0, 0, 1)), sigma_fetch(c + ivec3(1, 0, 1)), f.x);
  float c11 = mix(sigma_fetch(c + ivec3(0, 1, 1)), sigma_fetch(c + ivec3(1, 1, 1)), f.x);
  return mix(mix(c00, c10, f.y), mix(c01, c11, f.y), f.z);
}
