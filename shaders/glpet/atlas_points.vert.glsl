#version 450 core
// glpet raster pass 2 ([Toth2010] §III): one point per correspondence pixel (gl_VertexID runs
// over all pixels of all layers of the batch), emitted at its LOR texel of the atlas with
// the value a·x_v/N; additive blending into the R32F atlas sums the forward projection.
#include "raster_common.glsl"

layout(std430, binding = GLPET_IMAGE) readonly buffer X { float x[]; };
layout(binding = GLPET_CORRESPONDENCE) uniform sampler2DArray u_corr;
uniform ivec2 u_size;        // correspondence image W × H
uniform ivec2 u_atlas_size;  // N_a² × N_t²
out float v_value;

void main() {
  int per_layer = u_size.x * u_size.y;
  int layer = gl_VertexID / per_layer, pix = gl_VertexID - layer * per_layer;
  // Consecutive vertices take the same sub-pixel of consecutive macropixels (R×R pixels of one
  // primary detector), not neighbouring pixels: the R² lines of a macropixel mostly share a
  // LOR, and back-to-back blends into one texel serialise in the ROP. Same points, same sums.
  int mw = u_size.x / u_R, macros = mw * (u_size.y / u_R);
  int sub = pix / macros, m = pix - sub * macros;
  int X = (m % mw) * u_R + sub % u_R, Y = (m / mw) * u_R + sub / u_R;
  vec4 c = texelFetch(u_corr, ivec3(X, Y, layer), 0);
  int record = u_first_record + layer;
  float xv = x[record / u_N];
  gl_PointSize = 1.0;
  v_value = c.z * xv / float(u_N);
  if (c.w == 0.0 || xv == 0.0) {
    gl_Position = vec4(2.0, 2.0, 0.0, 1.0);  // outside the viewport: clipped
    return;
  }
  ivec2 t = atlas_texel(X, Y, int(c.x), int(c.y), int(cams[record].v_primary.w));
  // [Toth2010] §III: texel centre ((u+½)/N_a², (v+½)/N_t²) in clip space.
  gl_Position = vec4((vec2(t) + 0.5) / vec2(u_atlas_size) * 2.0 - 1.0, 0.0, 1.0);
}
