#version 450 core
// Viewer: one pair's LOR atlas (texel (u, v) = LOR u + v·width, v = 0 at the bottom) of the
// measured counts, the estimate ỹ = A x, or their ratio y/ỹ; zoom and pan.
#include "colour.glsl"

layout(std430, binding = 0) readonly buffer Measured { float meas[]; };
layout(std430, binding = 1) readonly buffer Estimated { float est[]; };
layout(std430, binding = 2) readonly buffer Stats { uint stats[]; };
uniform uint u_offset;  // first LOR of the pair
uniform ivec2 u_size;   // N_a² × N_t²
uniform int u_mode;     // 0 measured, 1 estimated, 2 ratio
uniform vec2 u_origin;
uniform float u_scale;
uniform vec2 u_pan;     // image pixel at u_origin
out vec4 o_colour;

void main() {
  ivec2 p = ivec2(floor((gl_FragCoord.xy - u_origin) / u_scale + u_pan));
  if (any(lessThan(p, ivec2(0))) || any(greaterThanEqual(p, u_size))) discard;
  uint l = u_offset + uint(p.y) * uint(u_size.x) + uint(p.x);
  vec3 c;
  if (u_mode == 0) {
    c = colour_map(1, meas[l] / max(uintBitsToFloat(stats[1]), 1e-30));
  } else if (u_mode == 1) {
    c = colour_map(1, est[l] / max(uintBitsToFloat(stats[2]), 1e-30));
  } else {
    float r = est[l] > 0.0 ? meas[l] / est[l] : 0.0;
    c = colour_map(2, 0.5 * r);  // 1 (a perfect fit) in the middle of the map
  }
  o_colour = vec4(c, 1.0);
}
