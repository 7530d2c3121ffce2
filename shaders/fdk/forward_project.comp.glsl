#version 450 core
// fdk `gl-compute` projector A: one invocation per detector pixel and view of the batch marches the
// pixel's ray (ray.glsl) through the volume, the cpu reference's sampling rule:
// y = weight · Σ_n trilinear(start + n·step), with fp32 trilinear weights (0 outside the grid).
// The volume is an R32F 2D array texture (layer k = slice z = k, border 0): each sample takes its
// eight taps as two textureGather (the 2×2 texels of slices z0 and z0 + 1), gathered at the point
// halfway between the four texel centres, half a texel away from where the footprint changes, so
// the taps are exactly (x0, x0 + 1) × (y0, y0 + 1) whatever the coordinate precision of the
// texture unit. Only the texel values come from the texture unit, not its 8-bit filter weights.
layout(local_size_x = 16, local_size_y = 8, local_size_z = 1) in;
#include "bindings/fdk.glsl"
layout(binding = FDK_RAY_VOLUME_TEXTURE) uniform sampler2DArray u_volume;
layout(std430, binding = FDK_RAY_PROJECTIONS) writeonly buffer Projections { float projections[]; };
uniform ivec2 u_detector;  // columns, rows
uniform int u_count;       // views in this dispatch
#include "ray.glsl"        // ray_samples(), u_dims

// The trilinear volume at index-space g; `inv` = 1 / (nx, ny).
float sample_volume(vec3 g, vec2 inv) {
  if (any(lessThanEqual(g, vec3(-1.0))) || any(greaterThanEqual(g, vec3(u_dims)))) return 0.0;
  vec3 g0 = floor(g);
  vec3 f = g - g0;
  vec2 c = (g0.xy + 1.0) * inv;  // texel x0's centre is at (x0 + 0.5) / nx: halfway to x0 + 1
  int z0 = int(g0.z);
  // textureGather's order: x = (x0, y0 + 1), y = (x0 + 1, y0 + 1), z = (x0 + 1, y0), w = (x0, y0).
  // Layers outside the array are clamped, not bordered: slices −1 and nz read 0 here.
  vec4 a = z0 >= 0 ? textureGather(u_volume, vec3(c, float(z0))) : vec4(0.0);
  vec4 b = z0 + 1 < u_dims.z ? textureGather(u_volume, vec3(c, float(z0 + 1))) : vec4(0.0);
  vec4 t = mix(a, b, f.z);
  return mix(mix(t.w, t.z, f.x), mix(t.x, t.y, f.x), f.y);
}

void main() {
  ivec3 id = ivec3(gl_GlobalInvocationID);
  if (id.x >= u_detector.x || id.y >= u_detector.y || id.z >= u_count) return;
  RaySamples s = ray_samples(id.z, id.x, id.y);
  vec2 inv = 1.0 / vec2(u_dims.xy);
  float sum = 0.0;
  for (int n = 0; n < s.count; ++n) sum += sample_volume(s.start + float(n) * s.step, inv);
  projections[(id.z * u_detector.y + id.y) * u_detector.x + id.x] = sum * s.weight;
}
