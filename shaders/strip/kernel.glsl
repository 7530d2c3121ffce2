// strip: the arithmetic of one event in GLSL, a line-by-line twin of compute/strip/kernel_math.hpp
// ([Bialas2015] eq. (2), eqs. (7)–(12) with diagonal C, the 3σ ellipse and bounding box of App. B).

uniform vec4 u_grid;    // y0, z0 (centre of pixel (0,0)), py, pz (mm)
uniform ivec2 u_dims;   // ny, nz
uniform vec4 u_kp;      // R, 1/σz², 1/σΔl², norm = det^{1/2}(C⁻¹)/(2π²)
uniform float u_cut;    // ellipse level (9 for 3σ)

struct Frame { float y, z, t, s, A, C, B, hy, hz; };

Frame make_frame(float zu, float zd, float dl) {
  Frame f;
  f.t = (zu - zd) / (2.0 * u_kp.x);                       // eq. (2)
  f.s = sqrt(1.0 + f.t * f.t);
  f.y = -0.5 * dl / f.s;
  f.z = 0.5 * (zu + zd + 2.0 * f.y * f.t);
  f.A = 2.0 * f.t * f.t * u_kp.y + 4.0 * u_kp.z * f.s * f.s;  // eq. (15)
  f.C = -2.0 * f.t * u_kp.y;
  f.B = 2.0 * u_kp.y;
  float r = sqrt(u_cut);
  f.hy = r / sqrt(f.A - f.C * f.C / f.B);                 // eq. (14)
  f.hz = r / sqrt(f.B - f.C * f.C / f.A);
  return f;
}

float ellipse_form(Frame f, float dy, float dz) { return f.A * dy * dy + 2.0 * f.C * dy * dz + f.B * dz * dz; }

float kernel_value(Frame f, float dy, float dz, float q) {  // eq. (7)
  float y = f.y + dy, t = f.t, s = f.s, s2 = f.s * f.s;
  float b1 = dz - dy * t, b3 = -2.0 * dy * s;
  float a12 = -2.0 * y * s2, a3 = -2.0 * y * t * s;
  float o12 = -2.0 * y * t * s2, o3 = -y * s * (1.0 + 2.0 * t * t);
  float aCb = u_kp.y * a12 * b1 + u_kp.z * a3 * b3;
  float aCa = u_kp.y * 2.0 * (u_kp.x * u_kp.x + y * y) * s2 * s2 + u_kp.z * a3 * a3;
  float oCb = u_kp.y * o12 * b1 + u_kp.z * o3 * b3;
  float Q = aCa + 2.0 * oCb;
  if (!(Q > 0.0)) return 0.0;
  float r = inversesqrt(Q);  // 1/√Q, and 1/Q = r²
  return u_kp.w * r * exp(-0.5 * (q - aCb * aCb * r * r));
}

// Inclusive pixel ranges (j0, j1, k0, k1); empty when j0 > j1.
ivec4 pixel_box(Frame f) {
  float fj0 = ceil((f.y - f.hy - u_grid.x) / u_grid.z), fj1 = floor((f.y + f.hy - u_grid.x) / u_grid.z);
  float fk0 = ceil((f.z - f.hz - u_grid.y) / u_grid.w), fk1 = floor((f.z + f.hz - u_grid.y) / u_grid.w);
  if (!(fj1 >= 0.0 && fj0 <= float(u_dims.x - 1) && fk1 >= 0.0 && fk0 <= float(u_dims.y - 1))) return ivec4(1, 0, 1, 0);
  return ivec4(max(int(fj0), 0), min(int(fj1), u_dims.x - 1), max(int(fk0), 0), min(int(fk1), u_dims.y - 1));
}

// ρ_new accumulation (shared with the other scatter passes).
#include "bindings/strip.glsl"
#define FLOAT_ADD_BINDING STRIP_RHO_NEW
#define FLOAT_ADD_NAME rho_new
#include "common/float_add.glsl"

layout(std430, binding = STRIP_EVENTS) readonly buffer Events { float events[]; };  // n × (z̃u, z̃d, Δl̃)
layout(std430, binding = STRIP_RHO) readonly buffer Rho { float rho[]; };        // ρ' of the last iteration
uniform uint u_count;
