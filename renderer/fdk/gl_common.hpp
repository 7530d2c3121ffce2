// Shared by the fdk GL back-projectors (gl raster and gl-compute): the uniforms both passes
// take for a batch of projections (shaders/fdk/sample.glsl and the two pass shaders).
#pragma once
#include "compute/core/volume.hpp"
#include "compute/fdk/backprojector.hpp"
#include "renderer/gl/objects.hpp"

namespace tomo::fdk {

// Volume placement (RabbitCT O_L, R_L), detector size, projections on texture unit 0.
inline void set_backprojection_uniforms(const gl::Program& prog, const Grid3& grid, const ProjectionView& b) {
  prog.use();
  prog.set("u_origin", float(grid.origin_mm[0]), float(grid.origin_mm[1]), float(grid.origin_mm[2]));
  prog.set("u_voxel", float(grid.voxel_mm[0]), float(grid.voxel_mm[1]), float(grid.voxel_mm[2]));
  prog.set("u_detector", b.sx, b.sy);
  prog.set("u_projections", 0);
}

}  // namespace tomo::fdk
