// Shared by the fdk GL back-projectors (gl raster and gl-compute): the uniforms both passes
// take for a batch of projections (shaders/fdk/sample.glsl and the two pass shaders).
#pragma once
#include "compute/core/volume.hpp"
#include "compute/fdk/backprojector.hpp"
#include "renderer/fdk/bindings.hpp"
#include "renderer/gl/grid_block.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/uniform.hpp"

namespace tomo::fdk {

// sample.glsl's and the batch's uniforms, read by both passes.
struct BackprojectionUniforms {
  gl::Uniform<gl::Vec2i> detector;  // S_x, S_y
  gl::Uniform<int> count, k0;       // projections in this batch; global z of the slab's first slice
  explicit BackprojectionUniforms(const gl::Program& p)
      : detector(p, "u_detector"), count(p, "u_count"), k0(p, "u_k0") {}
};

// Binds `prog`, the volume placement (RabbitCT O_L, R_L: common/grid.glsl through `block`) and
// sets the detector size; the projections go to texture unit binding::kProjections.
inline void set_backprojection_uniforms(const gl::Program& prog, const BackprojectionUniforms& u,
                                        gl::GridBlock& block, const Grid3& grid, const ProjectionView& b) {
  prog.use();
  block.bind(grid);
  u.detector.set({b.sx, b.sy});
}

}  // namespace tomo::fdk
