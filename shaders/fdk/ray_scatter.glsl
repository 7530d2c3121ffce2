// fdk projector Aᵀ: the transpose of ray.glsl's trilinear march. scatter_ray adds value·weight·w_tap
// to the eight voxels of every sample (taps outside the grid dropped), the exact adjoint of
// forward_project's sum. The sum is bound as z-slabs (a volume may exceed what one SSBO binding
// holds): only taps with z in [u_slab.x, u_slab.x + u_slab.y) land, and the march skips the
// samples that cannot reach the slab. Consecutive samples in the same cell (about two at the
// default half-voxel step) add their weights in registers first: one atomic per tap and cell
// visit instead of one per tap and sample. Needs float_add() (common/float_add.glsl) declared before.
#include "ray.glsl"
uniform ivec2 u_slab;  // first z index of the bound slab, its depth

void add_tap(ivec3 c, float w) {
  if (w == 0.0) return;
  if (any(lessThan(c, ivec3(0, 0, u_slab.x))) || any(greaterThanEqual(c, ivec3(u_dims.xy, u_slab.x + u_slab.y))))
    return;
  float_add(((c.z - u_slab.x) * u_dims.y + c.y) * u_dims.x + c.x, w);
}

// Adds a cell's accumulated tap weights (nothing for the no-cell marker).
void flush_cell(ivec3 p, vec4 lo, vec4 hi) {
  if (p.x < -1) return;
  add_tap(p, lo.x);
  add_tap(p + ivec3(1, 0, 0), lo.y);
  add_tap(p + ivec3(0, 1, 0), lo.z);
  add_tap(p + ivec3(1, 1, 0), lo.w);
  add_tap(p + ivec3(0, 0, 1), hi.x);
  add_tap(p + ivec3(1, 0, 1), hi.y);
  add_tap(p + ivec3(0, 1, 1), hi.z);
  add_tap(p + ivec3(1, 1, 1), hi.w);
}

void scatter_ray(int view, int i, int j, float value) {
  if (value == 0.0) return;
  RaySamples s = ray_samples(view, i, j);
  float c = value * s.weight;
  // Samples whose taps can reach the slab: z in (first − 1, first + depth), widened by one sample
  // for rounding (add_tap decides exactly).
  int n0 = 0, n1 = s.count;
  if (s.step.z != 0.0) {
    float na = (float(u_slab.x) - 1.0 - s.start.z) / s.step.z, nb = (float(u_slab.x + u_slab.y) - s.start.z) / s.step.z;
    n0 = int(clamp(floor(min(na, nb)) - 1.0, 0.0, float(s.count)));  // clamped before int(): no overflow
    n1 = int(clamp(ceil(max(na, nb)) + 2.0, 0.0, float(s.count)));
  }
  ivec3 cell = ivec3(-2);  // no cell yet (taps start at −1)
  vec4 lo = vec4(0.0), hi = vec4(0.0);  // the cell's weights at z and z + 1: (000, 100, 010, 110)
  for (int n = n0; n < n1; ++n) {
    vec3 g = s.start + float(n) * s.step;
    if (any(lessThanEqual(g, vec3(-1.0))) || any(greaterThanEqual(g, vec3(u_dims)))) continue;
    vec3 g0 = floor(g);
    ivec3 p = ivec3(g0);
    if (p != cell) {
      flush_cell(cell, lo, hi);
      cell = p;
      lo = hi = vec4(0.0);
    }
    vec3 f = g - g0, e = 1.0 - f;
    vec4 xy = vec4(e.x * e.y, f.x * e.y, e.x * f.y, f.x * f.y);
    lo += (c * e.z) * xy;
    hi += (c * f.z) * xy;
  }
  flush_cell(cell, lo, hi);
}
