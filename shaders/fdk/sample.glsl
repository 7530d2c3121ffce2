// fdk: RabbitCT bilinear sample of projection `layer` at detector position (u, v), pixel (i, j)
// centred at integer (u, v) = (i, j), taps outside the image read 0. Shared by the gl-compute and
// gl raster passes. EXACT: four texelFetch taps with fp32 weights (matches cpu); otherwise the
// sampler's bilinear (8-bit weights; GL_CLAMP_TO_BORDER with border 0 = taps outside read 0).
#include "bindings/fdk.glsl"
layout(binding = FDK_PROJECTIONS) uniform sampler2DArray u_projections;  // layer n = projection n of this dispatch/draw
uniform ivec2 u_detector;              // S_x, S_y

float tap(ivec2 p, int layer) {
  if (any(lessThan(p, ivec2(0))) || any(greaterThanEqual(p, u_detector))) return 0.0;
  return texelFetch(u_projections, ivec3(p, layer), 0).r;
}

float sample_projection(float u, float v, int layer) {
#ifdef EXACT
  if (!(u > -1.0 && u < float(u_detector.x) && v > -1.0 && v < float(u_detector.y))) return 0.0;
  float fu = floor(u), fv = floor(v);
  float au = u - fu, av = v - fv;
  ivec2 p = ivec2(int(fu), int(fv));
  return (1.0 - av) * ((1.0 - au) * tap(p, layer) + au * tap(p + ivec2(1, 0), layer)) +
         av * ((1.0 - au) * tap(p + ivec2(0, 1), layer) + au * tap(p + ivec2(1, 1), layer));
#else
  return texture(u_projections, vec3((u + 0.5) / float(u_detector.x), (v + 0.5) / float(u_detector.y), float(layer))).r;
#endif
}
