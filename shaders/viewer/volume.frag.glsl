#version 450 core
// Viewer: a slice (u_index >= 0) or maximum-intensity projection (u_index < 0) of the
// current iterate, read straight from its GL buffer, through a colour map with a window
// [lo, hi]·max. Panel orientation as tomo::slice(): columns along the first in-plane
// axis, the second in-plane axis upwards.
#include "colour.glsl"

layout(std430, binding = VIEWER_DATA) readonly buffer Image { float x[]; };
layout(std430, binding = VIEWER_STATS) readonly buffer Stats { uint stats[]; };
uniform ivec3 u_dims;
uniform int u_axis;
uniform int u_index;
uniform ivec2 u_size;
uniform vec2 u_origin;
uniform float u_scale;
uniform int u_map;
uniform float u_lo, u_hi;  // window as fractions of the maximum
uniform uint u_slot;
out vec4 o_colour;

float voxel(ivec3 c) { return x[c.x + u_dims.x * (c.y + u_dims.y * c.z)]; }

void main() {
  ivec2 p = ivec2(floor((gl_FragCoord.xy - u_origin) / u_scale));
  if (any(lessThan(p, ivec2(0))) || any(greaterThanEqual(p, u_size))) discard;
  int ua = u_axis == 0 ? 1 : 0, wa = u_axis == 2 ? 1 : 2;
  ivec3 c = ivec3(0);
  c[ua] = p.x;
  c[wa] = p.y;
  float v;
  if (u_index >= 0) {
    c[u_axis] = u_index;
    v = voxel(c);
  } else {
    v = -3.4e38;
    for (int d = 0; d < u_dims[u_axis]; ++d) {
      c[u_axis] = d;
      v = max(v, voxel(c));
    }
  }
  float mx = uintBitsToFloat(stats[u_slot]);
  float lo = u_lo * mx, hi = u_hi * mx;
  o_colour = vec4(hi > lo ? colour_map(u_map, (v - lo) / (hi - lo)) : colour_map(u_map, 0.5), 1.0);
}
