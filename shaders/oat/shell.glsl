// oat: compute/oat/kernel_math.hpp's H_srt arithmetic in GLSL (float): the transducer's shell
// frame, the cap of a shell inside the support ball, its rings and patches, and the trilinear
// neighbourhood of a patch. Formulas and order of operations follow kernel_math.hpp, so that the
// forward and transpose passes see the same patches and weights (and cpu's, to fp32).
// Needs, before the include: readonly buffer Frames { float frames[]; } (14 floats per
// transducer: s, e, u, v, D, rho), uniforms u_grid0 (voxel 0's centre), u_ds, u_dims.
const float PI = 3.14159265358979323846;

struct Frame { vec3 s, e, u, v; float D, rho; };
struct Cap { int n_theta; float R, theta_max, h; };
struct Ring { int n_phi; float area, sin_t, cos_t; };

Frame load_frame(int q) {
  int b = 14 * q;
  return Frame(vec3(frames[b], frames[b + 1], frames[b + 2]), vec3(frames[b + 3], frames[b + 4], frames[b + 5]),
               vec3(frames[b + 6], frames[b + 7], frames[b + 8]), vec3(frames[b + 9], frames[b + 10], frames[b + 11]),
               frames[b + 12], frames[b + 13]);
}

Cap shell_cap(Frame f, float R, float h) {
  Cap c = Cap(0, R, 0.0, h);
  if (!(R > 0.0) || R < f.D - f.rho || R > f.D + f.rho) return c;
  float cmin = (f.D > 0.0) ? (R * R + f.D * f.D - f.rho * f.rho) / (2.0 * R * f.D) : -1.0;
  if (R <= f.rho - f.D) cmin = -1.0;
  cmin = clamp(cmin, -1.0, 1.0);
  // acos(cmin) as atan2 of sin and cos: llvmpipe's acos is good to ~1e-4 only (measured: 1e-4
  // relative L2 of H_srt, 6e-6 this way); (1 − c)(1 + c) keeps sin exact near c = 1.
  c.theta_max = atan(sqrt((1.0 - cmin) * (1.0 + cmin)), cmin);
  c.n_theta = max(int(ceil(R * c.theta_max / h)), 1);
  return c;
}

Ring shell_ring(Cap c, int i) {
  float dth = c.theta_max / float(c.n_theta);
  float ca = cos(float(i) * dth), cb = cos(float(i + 1) * dth);
  float th = (float(i) + 0.5) * dth;
  float sm = sin(th), cm = cos(th);
  int n = max(int(ceil(2.0 * PI * c.R * sm / c.h)), 1);
  return Ring(n, c.R * c.R * (ca - cb) * 2.0 * PI / float(n), sm, cm);
}

vec3 shell_point(Frame f, Cap c, Ring r, int j) {
  float phi = (float(j) + 0.5) * 2.0 * PI / float(r.n_phi);
  float a = c.R * r.cos_t, b = c.R * r.sin_t * cos(phi), d = c.R * r.sin_t * sin(phi);
  return f.s + a * f.e + b * f.u + d * f.v;
}

// Continuous voxel index of a world point, and whether its neighbourhood touches the grid
// (kernel_math trilinear_visit's early-out: base index in −1..n−1 on every axis).
vec3 voxel_coord(vec3 p) { return (p - u_grid0) / u_ds; }
bool touches_grid(vec3 g) {
  ivec3 b = ivec3(floor(g));
  return all(greaterThanEqual(b, ivec3(-1))) && all(lessThan(b, u_dims));
}
