#version 450 core
// One halving step of a mip-reduction: each output texel is the sum of the input texels
// it covers: 2×2, and up to 3 along an axis for the last texel when the input size is
// odd (GL mip sizes halve rounding down). Input is a single-level view of the finer level.
#include "common/layer_in.glsl"
#include "bindings/gl.glsl"
layout(binding = TOMO_HALVE_SOURCE) uniform sampler2DArray u_src;
uniform ivec2 u_src_size;
uniform ivec2 u_dst_size;
out vec4 o_sum;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  ivec2 base = p * 2;
  ivec2 end = min(base + 2, u_src_size);
  if (p.x == u_dst_size.x - 1) end.x = u_src_size.x;
  if (p.y == u_dst_size.y - 1) end.y = u_src_size.y;
  vec4 s = vec4(0.0);
  for (int y = base.y; y < end.y; ++y)
    for (int x = base.x; x < end.x; ++x) s += texelFetch(u_src, ivec3(x, y, LAYER), 0);
  o_sum = s;
}
