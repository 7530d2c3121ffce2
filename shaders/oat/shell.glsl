// oat: compute/oat/kernel_math.hpp's H_srt arithmetic in GLSL (float): the transducer's shell
// frame, the cap of a shell inside the support ball, its rings and patches, and the trilinear
// neighbourhood of a patch. Formulas and order of operations follow kernel_math.hpp, so that the
// forward and transpose passes see the same patches and weights (and cpu's, to fp32).
// Needs, before the include: readonly buffer Frames { float frames[]; } (14 floats per
// transducer: s, e, u, v, D, rho), readonly buffer Caps { vec2 caps[]; } (per shell sample:
// θ_max and n_theta from kernel_math shell_cap in double on the host), uniforms u_grid0 (voxel
// 0's centre), u_ds, u_dims.
const float PI = 3.14159265358979323846;

struct Frame { vec3 s, e, u, v; float D, rho; };

// sin and cos of x ∈ [0, 2π] to ~1 ulp: a three-part Cody–Waite reduction by π/2 and the Cephes
// single-precision polynomials. GLSL's sin/cos are approximations (llvmpipe's cost H_srt 3e-4 …
// 2e-3 relative L2 vs cpu at R = 65 mm, where a patch position is R·sin/cos).
vec2 sin_cos(float x) {
  float k = floor(x * 0.63661977236758134 + 0.5);
  float r = ((x - k * 1.5703125) - k * 4.837512969970703125e-4) - k * 7.54978995489188216e-8;
  float z = r * r;
  float sr = ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * r + r;
  float cr = ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z - 0.5 * z + 1.0;
  int q = int(k) & 3;
  if (q == 0) return vec2(sr, cr);
  if (q == 1) return vec2(cr, -sr);
  if (q == 2) return vec2(-sr, -cr);
  return vec2(-cr, sr);
}
struct Cap { int n_theta; float R, theta_max, h; };
struct Ring { int n_phi; float area, sin_t, cos_t; };

Frame load_frame(int q) {
  int b = 14 * q;
  return Frame(vec3(frames[b], frames[b + 1], frames[b + 2]), vec3(frames[b + 3], frames[b + 4], frames[b + 5]),
               vec3(frames[b + 6], frames[b + 7], frames[b + 8]), vec3(frames[b + 9], frames[b + 10], frames[b + 11]),
               frames[b + 12], frames[b + 13]);
}

// The cap of shell sample `id` (radius R): θ_max and n_theta come from the host in double. (In
// fp32 GLSL, llvmpipe's acos/atan put θ_max off by ~1e-5 relative, i.e. every patch of a 65 mm
// shell off by ~1e-4 mm: 3e-4 relative L2 of H_srt vs cpu, 2e-3 of its transpose.)
Cap shell_cap(int id, float R, float h) {
  vec2 c = caps[id];
  return Cap(int(c.y), R, c.x, h);
}

Ring shell_ring(Cap c, int i) {
  float dth = c.theta_max / float(c.n_theta);
  vec2 m = sin_cos((float(i) + 0.5) * dth);
  float sm = m.x, cm = m.y;
  int n = max(int(ceil(2.0 * PI * c.R * sm / c.h)), 1);
  // cos(iΔθ) − cos((i+1)Δθ) = 2·sin((i+½)Δθ)·sin(Δθ/2): kernel_math's difference without its
  // cancellation (the first rings of a 65 mm shell lose most of their digits in fp32).
  float band = 2.0 * sm * sin_cos(0.5 * dth).x;
  return Ring(n, c.R * c.R * band * 2.0 * PI / float(n), sm, cm);
}

vec3 shell_point(Frame f, Cap c, Ring r, int j) {
  vec2 p = sin_cos((float(j) + 0.5) * 2.0 * PI / float(r.n_phi));
  float a = c.R * r.cos_t, b = c.R * r.sin_t * p.y, d = c.R * r.sin_t * p.x;
  return f.s + a * f.e + b * f.u + d * f.v;
}

// Continuous voxel index of a world point, and whether its neighbourhood touches the grid
// (kernel_math trilinear_visit's early-out: base index in −1..n−1 on every axis).
vec3 voxel_coord(vec3 p) { return (p - u_grid0) / u_ds; }
bool touches_grid(vec3 g) {
  ivec3 b = ivec3(floor(g));
  return all(greaterThanEqual(b, ivec3(-1))) && all(lessThan(b, u_dims));
}
