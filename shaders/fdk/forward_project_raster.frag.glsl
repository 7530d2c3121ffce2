#version 450 core
// fdk `gl` projector A as a graphics pass: one full-viewport triangle per view of the batch (instanced,
// routed to layer LAYER of the R32F array render target by common/layered_triangle.vert.glsl); each
// fragment is detector pixel (i, j) of that view and marches its ray (ray.glsl) through the volume
// held as a 3D texture, taking each sample with one hardware trilinear fetch (GL_LINEAR,
// GL_CLAMP_TO_BORDER with border 0: the cpu's taps outside the grid read 0).
#include "common/layer_in.glsl"
#include "bindings/fdk.glsl"
layout(binding = FDK_RAY_VOLUME_TEXTURE) uniform sampler3D u_volume;
#include "ray.glsl"  // ray_samples(), u_dims

layout(location = 0) out float o_line_integral;

void main() {
  ivec2 ij = ivec2(gl_FragCoord.xy);
  RaySamples s = ray_samples(LAYER, ij.x, ij.y);
  vec3 inv = 1.0 / vec3(u_dims);
  // Texel c's centre sits at normalised (c + 0.5) / n: index-space g maps to (g + 0.5) / n.
  vec3 p = (s.start + 0.5) * inv, dp = s.step * inv;
  float sum = 0.0;
  // textureLod: the loop count differs between neighbouring fragments, so implicit derivatives are undefined.
  for (int n = 0; n < s.count; ++n) sum += textureLod(u_volume, p + float(n) * dp, 0.0).r;
  o_line_integral = sum * s.weight;
}
