#version 450 core
// Viewer: one pair's LOR atlas (texel (u, v) = LOR u + v·width, v = 0 at the bottom) of the
// measured counts, the estimate ỹ = A x, or their ratio y/ỹ; zoom and pan.
#include "colour.glsl"

layout(std430, binding = VIEWER_MEASURED) readonly buffer Measured { float meas[]; };
layout(std430, binding = VIEWER_ESTIMATED) readonly buffer Estimated { float est[]; };
layout(std430, binding = VIEWER_ATLAS_STATS) readonly buffer Stats { uint stats[]; };
uniform uint u_offset;  // first LOR of the pair
uniform ivec2 u_size;   // N_a² × N_t²
uniform int u_mode;     // viewer::AtlasMode
uniform vec2 u_origin;
uniform float u_scale;
uniform vec2 u_pan;     // image pixel at u_origin
out vec4 o_colour;

void main() {
  ivec2 p = ivec2(floor((gl_FragCoord.xy - u_origin) / u_scale + u_pan));
  if (any(lessThan(p, ivec2(0))) || any(greaterThanEqual(p, u_size))) discard;
  uint l = u_offset + uint(p.y) * uint(u_size.x) + uint(p.x);
  vec3 c;
  if (u_mode == VIEWER_ATLAS_MEASURED) {
    c = colour_map(VIEWER_MAP_HOT, meas[l] / max(uintBitsToFloat(stats[1]), 1e-30));
  } else if (u_mode == VIEWER_ATLAS_ESTIMATED) {
    c = colour_map(VIEWER_MAP_HOT, est[l] / max(uintBitsToFloat(stats[2]), 1e-30));
  } else {
    float r = est[l] > 0.0 ? meas[l] / est[l] : 0.0;
    c = colour_map(VIEWER_MAP_VIRIDIS, 0.5 * r);  // 1 (a perfect fit) in the middle of the map
  }
  o_colour = vec4(c, 1.0);
}
