#version 450 core
// fdk: RabbitCT back-projection ([Hofmann2010] Algorithm 1) of up to 64 projections per dispatch from
// a 2D array texture; each invocation updates VOXELS_PER_THREAD consecutive z-voxels of one (x, y).
// EXACT: four texelFetch taps with fp32 weights (matches cpu); otherwise the sampler's bilinear.
// The bound Volume is one z-slab (u_slab_dims.z slices starting at global z index u_k0): a whole 1024³
// volume is 4 GiB, beyond GL_MAX_SHADER_STORAGE_BLOCK_SIZE, so the host splits it.

#define VOXELS_PER_THREAD 8
layout(local_size_x = 32, local_size_y = 4, local_size_z = 1) in;
#include "bindings/fdk.glsl"
layout(std430, binding = FDK_VOLUME) buffer Volume { float volume[]; };
layout(std430, binding = FDK_MATRICES) readonly buffer Matrices { float mats[]; };  // 12 per projection, column-major
uniform ivec3 u_slab_dims;  // voxels of this slab (x, y: the volume's; z: the slab's depth)
uniform int u_k0;           // global z index of the slab's first slice
#include "common/grid.glsl"  // u_grid_origin, u_grid_voxel
uniform int u_count;

#include "sample.glsl"  // u_projections, u_detector, sample_projection()

void main() {
  int i = int(gl_GlobalInvocationID.x), j = int(gl_GlobalInvocationID.y);
  int kb = int(gl_GlobalInvocationID.z) * VOXELS_PER_THREAD;
  if (i >= u_slab_dims.x || j >= u_slab_dims.y || kb >= u_slab_dims.z) return;
  float x = u_grid_origin.x + float(i) * u_grid_voxel.x;
  float y = u_grid_origin.y + float(j) * u_grid_voxel.y;
  float acc[VOXELS_PER_THREAD];
  for (int q = 0; q < VOXELS_PER_THREAD; ++q) acc[q] = 0.0;
  for (int n = 0; n < u_count; ++n) {
    int m = 12 * n;
    // The x/y part of u, v, w is shared by the invocation's z-voxels.
    float cu = mats[m + 0] * x + mats[m + 3] * y + mats[m + 9];
    float cv = mats[m + 1] * x + mats[m + 4] * y + mats[m + 10];
    float cw = mats[m + 2] * x + mats[m + 5] * y + mats[m + 11];
    for (int q = 0; q < VOXELS_PER_THREAD; ++q) {
      float z = u_grid_origin.z + float(u_k0 + kb + q) * u_grid_voxel.z;
      float rw = 1.0 / (mats[m + 8] * z + cw);
      float u = (mats[m + 6] * z + cu) * rw;
      float v = (mats[m + 7] * z + cv) * rw;
      acc[q] += rw * rw * sample_projection(u, v, n);  // RabbitCT update: f += p / w²
    }
  }
  for (int q = 0; q < VOXELS_PER_THREAD; ++q)
    if (kb + q < u_slab_dims.z) volume[uint(kb + q) * uint(u_slab_dims.y) * uint(u_slab_dims.x) + uint(j) * uint(u_slab_dims.x) + uint(i)] += acc[q];
}
