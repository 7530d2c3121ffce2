// fdk projector: the samples of detector pixel (i, j)'s ray in view `view` of the batch, by the
// rule of compute/fdk/ray_model.cpp (ray_samples): the ray clipped to (−1, n) on every axis (the
// support of the trilinear volume), cut into ceil(length / step) equal pieces sampled at their
// midpoints. The set-up runs in double as the cpu's does, so both take the same sample count;
// the march itself is fp32 (start + n·step).
#include "bindings/fdk.glsl"
#include "common/grid.glsl"  // u_dims
// Per view of the batch, 24 doubles: base, du, dv, d1 (index units per depth t), du_mm, dv_mm,
// d1_mm (mm per t), 3 unused: ray_model.hpp's ViewRays.
layout(std430, binding = FDK_RAYS) readonly buffer Rays { double rays[]; };
uniform double u_step_mm;  // the sample spacing in mm (ProjectorOptions.step_voxels · smallest voxel side)

struct RaySamples {
  vec3 start;    // first sample, index space
  vec3 step;     // between samples, index space
  int count;     // 0: the ray misses the volume
  float weight;  // length of one piece, mm
};

dvec3 ray_vector(int view, int k) {
  int b = 24 * view + 3 * k;
  return dvec3(rays[b], rays[b + 1], rays[b + 2]);
}

RaySamples ray_samples(int view, int i, int j) {
  RaySamples s = RaySamples(vec3(0.0), vec3(0.0), 0, 0.0);
  double u = double(i), v = double(j);
  dvec3 base = ray_vector(view, 0);
  dvec3 d = ray_vector(view, 1) * u + ray_vector(view, 2) * v + ray_vector(view, 3);
  dvec3 dmm = ray_vector(view, 4) * u + ray_vector(view, 5) * v + ray_vector(view, 6);
  double t0 = 0.0LF, t1 = 0.0LF;
  bool bounded = false;
  for (int a = 0; a < 3; ++a) {
    double lo = -1.0LF, hi = double(u_dims[a]);
    if (d[a] == 0.0LF) {
      if (!(base[a] > lo && base[a] < hi)) return s;
      continue;
    }
    double ta = (lo - base[a]) / d[a], tb = (hi - base[a]) / d[a];
    if (ta > tb) {
      double t = ta;
      ta = tb;
      tb = t;
    }
    t0 = max(t0, ta);
    t1 = bounded ? min(t1, tb) : tb;
    bounded = true;
  }
  if (!bounded || !(t1 > t0)) return s;
  double per_t = sqrt(dmm.x * dmm.x + dmm.y * dmm.y + dmm.z * dmm.z);
  s.count = max(1, int(ceil((t1 - t0) * per_t / u_step_mm)));
  double dt = (t1 - t0) / double(s.count);
  s.start = vec3(base + (t0 + 0.5LF * dt) * d);
  s.step = vec3(dt * d);
  s.weight = float(dt * per_t);
  return s;
}
