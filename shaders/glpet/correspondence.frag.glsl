#version 450 core
// glpet raster pass 1 ([Toth2010] §II.B): one line per fragment. (p,q) from the pixel, (r,s)
// from the interpolated index colour, y1 from the pixel centre, y2 interpolated; the weight
// a = T·Δω/(2π) with T ray-marched over K samples of σ_t (trilinear in fp32 from texelFetch
// of the 3D texture, as the line-set contract). Output (r, s, a, 1); cleared pixels are 0.
#include "raster_common.glsl"

in vec2 v_colour;
in vec3 v_y2;
flat in int v_layer;
uniform vec3 u_pixel_origin[2];  // per primary module: y1 = origin + fc.x·du + fc.y·dv
uniform vec3 u_pixel_du[2];
uniform vec3 u_pixel_dv[2];
uniform vec3 u_primary_normal[2];
uniform float u_pixel_area[2];   // ΔA = w·h/(N_a·N_t·R²)
layout(binding = GLPET_SIGMA_TEXTURE) uniform sampler3D u_sigma;
#include "common/grid.glsl"  // u_grid_origin, u_inv_voxel, u_dims
uniform int u_K;
uniform int u_sigma_empty;
out vec4 o_line;

#ifdef HW_FILTER
// [Toth2010]'s way: one hardware-filtered fetch (GL_LINEAR, CLAMP_TO_BORDER 0) at (g+½)/dims.
// Faster, but the filter weights are fixed-point (8 bits on NVIDIA): not the fp32 contract.
float sigma_at(vec3 g) { return texture(u_sigma, (g + 0.5) / vec3(u_dims)).r; }
#else
float sigma_fetch(ivec3 c) {
  if (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, u_dims))) return 0.0;
  return texelFetch(u_sigma, c, 0).r;
}

#include "common/trilinear.glsl"
#endif

#include "line_math.glsl"

// [Toth2010] §II.B ray marching in fp32, midpoint samples t_k = (k+½)/K on y(t) = y2 + t(y1 − y2).
float transmission(vec3 y1, vec3 y2) {
  if (u_sigma_empty != 0) return 1.0;
  vec3 g0 = (y2 - u_grid_origin) * u_inv_voxel;
  vec3 dg = (y1 - y2) * u_inv_voxel;
  int k0, k1;
  if (!sample_range(g0, dg, u_dims, u_K, k0, k1)) return 1.0;
  float sum = midpoint_sum(g0, dg, k0, k1, u_K);
  return exp(-sum * length(y1 - y2) / float(u_K));
}

void main() {
  // The colour is (1,1)…(N_a+1,N_t+1) on the quad ([Toth2010] §II.B); outside that range the
  // fragment comes from rasterizer edge rounding beyond the quad: not a line of the set.
  vec2 c = v_colour;
  if (c.x < 1.0 || c.y < 1.0 || c.x >= float(u_na + 1) || c.y >= float(u_nt + 1)) discard;
  int r = int(c.x) - 1, s = int(c.y) - 1;
  Camera cam = cams[u_first_record + v_layer];
  int prim = int(cam.v_primary.w);
  vec3 v = cam.v_primary.xyz;
  vec3 d = (u_pixel_origin[prim] - v) + gl_FragCoord.x * u_pixel_du[prim] + gl_FragCoord.y * u_pixel_dv[prim];
  float d2 = dot(d, d);
  float cos_t = abs(dot(d, u_primary_normal[prim])) * inversesqrt(d2);
  const float inv_two_pi = 0.15915494309189535;
  float w = u_pixel_area[prim] * cos_t / d2 * inv_two_pi * transmission(v + d, v_y2);
  o_line = vec4(float(r), float(s), w, 1.0);
}
