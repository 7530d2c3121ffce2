#version 450 core
// σ_t march ceiling, fragment side (bench): one line per fragment of u_tiles² 128×128 tiles,
// written as RGBA32F (r, s, weight, 1) like glpet's correspondence target; MODE 0 or 1.
uniform int u_tiles;
out vec4 o;
#include "bench/march.glsl"
void main() {
  uvec2 P = uvec2(gl_FragCoord.xy);
  uint tile = (P.y >> 7u) * uint(u_tiles) + (P.x >> 7u), pix = (P.y & 127u) * 128u + (P.x & 127u);
  o = vec4(1.0, 2.0, exp(-march(tile * 16384u + pix)), 1.0);
}
