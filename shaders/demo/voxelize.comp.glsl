#version 450 core
// demo: mean phantom value of each voxel of one z-slab from s³ sub-samples, written to an r32f 3D image.
#include "../common/phantom.glsl"
#include "bindings/demo.glsl"

layout(local_size_x = 8, local_size_y = 8, local_size_z = 4) in;
layout(std430, binding = DEMO_SHAPES) readonly buffer Shapes { PhantomShape shapes[]; };
layout(r32f, binding = DEMO_VOLUME) uniform writeonly image3D volume;

#include "common/grid.glsl"  // u_grid_origin, u_grid_voxel, u_dims
uniform int u_z0;        // first slice of this slab
uniform int u_slab;
uniform int u_supersampling;
uniform int u_shape_count;

void main() {
  ivec3 v = ivec3(gl_GlobalInvocationID.xy, int(gl_GlobalInvocationID.z) + u_z0);
  if (any(greaterThanEqual(v, u_dims)) || int(gl_GlobalInvocationID.z) >= u_slab) return;
  int s = u_supersampling;
  float sum = 0.0;
  for (int c = 0; c < s; ++c)
    for (int b = 0; b < s; ++b)
      for (int a = 0; a < s; ++a) {
        vec3 f = (vec3(a, b, c) + 0.5) / float(s) - 0.5;
        vec3 p = u_grid_origin + (vec3(v) + f) * u_grid_voxel;
        float value = 0.0;
        for (int i = 0; i < u_shape_count; ++i) value += shape_value_at(shapes[i], p);
        sum += value;
      }
  imageStore(volume, v, vec4(sum / float(s * s * s)));
}
