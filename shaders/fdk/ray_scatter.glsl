// fdk projector Aᵀ: the transpose of ray.glsl's trilinear march. scatter_ray adds value·weight·w_tap
// to the eight voxels of every sample (taps outside the grid dropped), the exact adjoint of
// forward_project's sum. Needs float_add() (common/float_add.glsl) declared before the include.
#include "ray.glsl"

void add_tap(ivec3 c, float w) {
  if (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, u_dims))) return;
  float_add((c.z * u_dims.y + c.y) * u_dims.x + c.x, w);
}

void scatter_ray(int view, int i, int j, float value) {
  if (value == 0.0) return;
  RaySamples s = ray_samples(view, i, j);
  float c = value * s.weight;
  for (int n = 0; n < s.count; ++n) {
    vec3 g = s.start + float(n) * s.step;
    if (any(lessThanEqual(g, vec3(-1.0))) || any(greaterThanEqual(g, vec3(u_dims)))) continue;
    vec3 g0 = floor(g);
    ivec3 p = ivec3(g0);
    vec3 f = g - g0, e = 1.0 - f;
    add_tap(p, c * e.x * e.y * e.z);
    add_tap(p + ivec3(1, 0, 0), c * f.x * e.y * e.z);
    add_tap(p + ivec3(0, 1, 0), c * e.x * f.y * e.z);
    add_tap(p + ivec3(1, 1, 0), c * f.x * f.y * e.z);
    add_tap(p + ivec3(0, 0, 1), c * e.x * e.y * f.z);
    add_tap(p + ivec3(1, 0, 1), c * f.x * e.y * f.z);
    add_tap(p + ivec3(0, 1, 1), c * e.x * f.y * f.z);
    add_tap(p + ivec3(1, 1, 1), c * f.x * f.y * f.z);
  }
}
