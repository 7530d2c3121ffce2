// The programs of glpet's raster passes (shaders/glpet/) with their uniform handles, looked up
// once per link (gl::ShaderLibrary::get), and the fixed-function state each pass draws with.
#pragma once
#include "renderer/gl/pipeline_state.hpp"
#include "renderer/gl/uniform.hpp"

namespace tomo::glpet {

// The raster passes in the order one batch runs them (forward: Correspondence, Atlas;
// back-projections: Correspondence, Terms, Reduction, Collect).
enum class RasterPassKind { Correspondence, Atlas, Terms, Reduction, Collect };

// Sees the GL commands of every raster pass: begin() before its first command, end() after its
// last, on the shared context, once per batch. For instruments outside the projector (timer
// queries, frame-debugger markers); the projector itself does nothing with it.
class RasterPassObserver {
 public:
  virtual ~RasterPassObserver() = default;
  virtual void begin(RasterPassKind pass) = 0;
  virtual void end(RasterPassKind pass) = 0;
};

// raster_common.glsl's uniforms, shared by every raster pass.
struct RasterCommonUniforms {
  gl::Uniform<int> first_record, N, R, na, nt;
  explicit RasterCommonUniforms(const gl::Program& p)
      : first_record(p, "u_first_record"), N(p, "u_N"), R(p, "u_R"), na(p, "u_na"), nt(p, "u_nt") {}
};

// Pass 1 (correspondence.{vert,frag}.glsl): the correspondence images of a batch of samples.
struct CorrespondencePass {
  static constexpr gl::PipelineState kState{};  // no blending, depth, culling or scissor
  const gl::Program& program;
  RasterCommonUniforms common;
  gl::Uniform<int> skip_zero, K, sigma_empty;
  gl::Uniform<gl::Vec3f> sec_corner, pixel_origin, pixel_du, pixel_dv, primary_normal;  // arrays
  gl::Uniform<gl::Vec2f> sec_colour;                                                      // array
  gl::Uniform<float> pixel_area;                                                          // array
  explicit CorrespondencePass(const gl::Program& p)
      : program(p), common(p), skip_zero(p, "u_skip_zero"), K(p, "u_K"), sigma_empty(p, "u_sigma_empty"),
        sec_corner(p, "u_sec_corner"), pixel_origin(p, "u_pixel_origin"), pixel_du(p, "u_pixel_du"),
        pixel_dv(p, "u_pixel_dv"), primary_normal(p, "u_primary_normal"), sec_colour(p, "u_sec_colour"),
        pixel_area(p, "u_pixel_area") {}
};

// Pass 2 (atlas_points.{vert,frag}.glsl): points blended additively into the LOR atlas.
struct AtlasPointsPass {
  static constexpr gl::PipelineState kState{.blend = gl::Blend::Add};
  const gl::Program& program;
  RasterCommonUniforms common;
  gl::Uniform<gl::Vec2i> size, atlas_size;
  explicit AtlasPointsPass(const gl::Program& p)
      : program(p), common(p), size(p, "u_size"), atlas_size(p, "u_atlas_size") {}
};

// Pass 3a (ratio.frag.glsl on the layered triangle): the terms (A·z, A) per pixel.
struct TermsPass {
  static constexpr gl::PipelineState kState{};
  const gl::Program& program;
  RasterCommonUniforms common;
  gl::Uniform<int> first_layer, mode;
  gl::Uniform<unsigned> lor_offset;
  explicit TermsPass(const gl::Program& p)
      : program(p), common(p), first_layer(p, "u_first_layer"), mode(p, "u_mode"), lor_offset(p, "u_lor_offset") {}
};

// Pass 3c (collect.comp.glsl): per voxel, the sums of its samples into b and s.
struct CollectPass {
  const gl::Program& program;
  gl::Uniform<int> top, N, want_b, want_sens;
  gl::Uniform<unsigned> first_voxel, batch_voxels;
  explicit CollectPass(const gl::Program& p)
      : program(p), top(p, "u_top"), N(p, "u_N"), want_b(p, "u_want_b"), want_sens(p, "u_want_sens"),
        first_voxel(p, "u_first_voxel"), batch_voxels(p, "u_batch_voxels") {}
};

}  // namespace tomo::glpet
