// Shared by the fdk GL back-projectors (gl raster and gl-compute): the uniforms both passes
// take for a batch of projections (shaders/fdk/sample.glsl and the two pass shaders).
#pragma once
#include "compute/core/volume.hpp"
#include "compute/fdk/backprojector.hpp"
#include "renderer/gl/grid_block.hpp"
#include "renderer/gl/objects.hpp"

namespace tomo::fdk {

// Volume placement (RabbitCT O_L, R_L: common/grid.glsl through `block`), detector size,
// projections on texture unit 0.
inline void set_backprojection_uniforms(const gl::Program& prog, gl::GridBlock& block, const Grid3& grid,
                                        const ProjectionView& b) {
  prog.use();
  block.bind(grid);
  prog.set("u_detector", b.sx, b.sy);
  prog.set("u_projections", 0);
}

}  // namespace tomo::fdk
