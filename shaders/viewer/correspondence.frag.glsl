#version 450 core
// Viewer: layer 0 of the glpet correspondence target ([Toth2010] Fig. 8) in false colour,
// nearest sampling at an integer scale, optionally with the macropixel grid (R×R pixels
// = one primary detector).
#include "colour.glsl"

layout(binding = VIEWER_CORRESPONDENCE) uniform sampler2DArray u_corr;
uniform vec2 u_origin;  // window pixel of the image's lower-left corner
uniform float u_scale;  // window pixels per image pixel
uniform ivec2 u_size;   // R·N_a × R·N_t
uniform int u_na, u_nt, u_R;
uniform float u_wref;
uniform int u_grid;
out vec4 o_colour;

void main() {
  vec2 img = (gl_FragCoord.xy - u_origin) / u_scale;
  ivec2 p = ivec2(floor(img));
  if (any(lessThan(p, ivec2(0))) || any(greaterThanEqual(p, u_size))) discard;
  vec3 c = correspondence_colour(texelFetch(u_corr, ivec3(p, 0), 0), u_na, u_nt, u_wref);
  if (u_grid != 0) {
    vec2 m = img / float(u_R);
    vec2 d = (m - round(m)) * float(u_R) * u_scale;  // window pixels to the nearest macropixel edge
    if (any(lessThanEqual(abs(d), vec2(0.5)))) c = vec3(0.6);
  }
  o_colour = vec4(c, 1.0);
}
