// The reconstruction grid as one std140 uniform block at binding TOMO_GRID_BLOCK, filled by gl::GridBlock
// (renderer/gl/grid_block.hpp) from a Grid3: one name per quantity in every pass that places voxels.
// The names match shaders/glpet/line_set.glsl's (which keeps its own dvec3 copies: fp64 contract).
#include "bindings/gl.glsl"
layout(std140, binding = TOMO_GRID_BLOCK) uniform GridBlock {
  vec3 u_grid_origin;  // world position of the centre of voxel (0,0,0), mm (RabbitCT O_L)
  vec3 u_grid_voxel;   // voxel size, mm (RabbitCT R_L)
  vec3 u_inv_voxel;    // 1 / u_grid_voxel, divided in double on the host
  ivec3 u_dims;        // voxels along x, y, z of the whole grid
};
