#version 450 core
// glpet raster pass 3a ([Toth2010] §IV): turns each correspondence pixel into the two terms of
// eq. (3), (A_lv·z_l, A_lv, 0, 0), for the mip-reduction that sums them per layer.
// u_mode (glpet::GatherMode) 0: z_l = y_l (plain back-projection); 1: z_l = y_l/ỹ_l (0 where
// ỹ_l <= 0); 2: z = 0.
#include "raster_common.glsl"

flat in int v_layer;  // from common/layered_triangle.vert.glsl
layout(std430, binding = GLPET_LORS) readonly buffer Y { float y[]; };
layout(std430, binding = GLPET_LORS_ESTIMATE) readonly buffer T { float ytilde[]; };
layout(binding = GLPET_CORRESPONDENCE) uniform sampler2DArray u_corr;
uniform int u_mode;
uniform uint u_lor_offset;
out vec4 o_terms;

void main() {
  ivec2 P = ivec2(gl_FragCoord.xy);
  vec4 c = texelFetch(u_corr, ivec3(P, v_layer), 0);
  if (c.w == 0.0) {
    o_terms = vec4(0.0);
    return;
  }
  ivec2 t = atlas_texel(P.x, P.y, int(c.x), int(c.y), int(cams[u_first_record + v_layer].v_primary.w));
  uint l = u_lor_offset + uint(t.y) * uint(u_na * u_na) + uint(t.x);
  float z = 0.0;
  if (u_mode == 0) {
    z = y[l];
  } else if (u_mode == 1) {
    float tl = ytilde[l];
    z = tl > 0.0 ? y[l] / tl : 0.0;
  }
  o_terms = vec4(c.z * z, c.z, 0.0, 0.0);
}
