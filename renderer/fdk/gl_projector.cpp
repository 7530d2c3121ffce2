// `gl` ConeBeamProjector: A as the graphics pipeline does it. The volume is an R32F 3D texture
// (GL_LINEAR, border 0); per batch of up to 64 views one instanced draw puts a full-viewport
// triangle on every layer of an R32F array render target (one layer per view), and each fragment
// (shaders/fdk/forward_project_raster.frag.glsl) marches its detector pixel's ray with one
// hardware trilinear fetch per sample, by the cpu's sampling rule (ray.glsl). The texture unit's
// filter weights are 8-bit fixed point on NVIDIA (fp32 on llvmpipe), so A agrees with the cpu to
// about 1e-3 there (docs/fdk_gl_projector.md). Aᵀ is the same layered draw on a framebuffer without
// attachments whose fragments scatter along their rays into z-slab SSBOs
// (back_project_raster.frag.glsl): the exact transpose of the fp32 trilinear march, as gl-compute's.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/fdk/forward_projector.hpp"
#include "compute/fdk/ray_model.hpp"
#include "compute/fdk/voxel_back_fdk.hpp"
#include "renderer/fdk/bindings.hpp"
#include "renderer/fdk/ray_table.hpp"
#include "renderer/fdk/scatter_slabs.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/grid_block.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/pipeline_state.hpp"
#include "renderer/gl/uniform.hpp"

namespace tomo::fdk {
namespace {

constexpr int kMaxViewsPerDraw = 64;

// forward_project_raster.frag.glsl: writes each view's line integrals into its layer.
struct ForwardPass {
  static constexpr gl::PipelineState kState{};  // no blending: each pixel written once
  const gl::Program& program;
  RayUniforms ray;
  gl::Uniform<int> first_layer;
  explicit ForwardPass(const gl::Program& p) : program(p), ray(p), first_layer(p, "u_first_layer") {}
};

// back_project_raster.frag.glsl: scatters each pixel along its ray (no colour output).
struct BackPass {
  static constexpr gl::PipelineState kState{};
  const gl::Program& program;
  RayUniforms ray;
  ScatterUniforms scatter;
  gl::Uniform<gl::Vec2i> detector;
  gl::Uniform<int> first_layer;
  explicit BackPass(const gl::Program& p)
      : program(p), ray(p), scatter(p), detector(p, "u_detector"), first_layer(p, "u_first_layer") {}
};

class GlRasterProjector final : public ConeBeamProjector {
 public:
  void setup(const ConeGeometry& g) override {
    gl::Context& ctx = gl::shared_context();
    ctx.make_current();
    table_ = ray_table(g);  // degenerate views fail here
    const gl::Capabilities& caps = ctx.info().caps;
    const int max3d = caps.max_3d_texture_size;
    if (*std::max_element(g.grid.dims.begin(), g.grid.dims.end()) > max3d)
      throw UnavailableError(str_cat("fdk gl projector: a ", g.grid.dims[0], "x", g.grid.dims[1], "x", g.grid.dims[2],
                                     " volume exceeds this GL's 3D texture size (", max3d, ")"));
    if (g.sx > caps.max_framebuffer_width || g.sy > caps.max_framebuffer_height || g.sx > caps.max_texture_size ||
        g.sy > caps.max_texture_size)
      throw UnavailableError(str_cat("fdk gl projector: a ", g.sx, "x", g.sy,
                                     " detector exceeds this GL's framebuffer size (", caps.max_framebuffer_width, "x",
                                     caps.max_framebuffer_height, ")"));
    g_ = g;
    float_atomics_ = caps.float_atomics;
    const int layer_cap = std::min({kMaxViewsPerDraw, std::max(g.views(), 1), caps.max_framebuffer_layers,
                                    caps.max_array_texture_layers});
    per_ = views_per_batch(g, caps.max_ssbo_block_size, layer_cap);
    volume_ = gl::Texture::create_3d(GL_R32F, g.grid.dims[0], g.grid.dims[1], g.grid.dims[2]);
    volume_.set_wrap(GL_CLAMP_TO_BORDER);  // border colour (0,0,0,0): the trilinear volume is 0 outside
    volume_.set_filter(GL_LINEAR, GL_LINEAR);
    target_ = gl::Texture::create_2d_array(GL_R32F, g.sx, g.sy, per_);
    rays_ = gl::Buffer(static_cast<std::size_t>(per_) * kRayDoubles * sizeof(double));
    vao_ = gl::VertexArray::create();
    target_fbo_ = gl::Framebuffer::create();
    target_fbo_.attach(GL_COLOR_ATTACHMENT0, target_);  // layered: gl_Layer picks the view
    target_fbo_.set_draw_buffers(1);
    target_fbo_.check_complete();
    // Aᵀ's draws need only a size: a framebuffer without attachments.
    scatter_fbo_ = gl::Framebuffer::create();
    TOMO_GL_CHECK(glNamedFramebufferParameteri(scatter_fbo_.id(), GL_FRAMEBUFFER_DEFAULT_WIDTH, g.sx));
    TOMO_GL_CHECK(glNamedFramebufferParameteri(scatter_fbo_.id(), GL_FRAMEBUFFER_DEFAULT_HEIGHT, g.sy));
    TOMO_GL_CHECK(glNamedFramebufferParameteri(scatter_fbo_.id(), GL_FRAMEBUFFER_DEFAULT_LAYERS, per_));
    sum_.allocate(g.grid, scatter_slab_depth(g.grid, caps.max_ssbo_block_size));
    input_ = gl::Buffer(static_cast<std::size_t>(per_) * g.image_size() * sizeof(float));
    (void)forward_pass();  // compile here, outside the iterations
    (void)back_pass();
    voxel_back_.setup(g);
  }

  void forward(std::span<const float> volume, std::span<float> out, std::span<const int> views) override {
    const std::vector<int> list = checked_views("fdk gl projector", g_, volume.size(), out.size(), views);
    const double step = step_mm(g_.grid, options_);
    check_loop_budget("fdk gl projector A", 3 + max_samples(g_.grid, step));
    gl::shared_context().make_current();
    const ForwardPass& pass = forward_pass();
    volume_.upload_float(volume.data(), 1);
    grid_block_.bind(g_.grid);
    pass.ray.step_mm.set(step);
    pass.first_layer.set(0);
    pass.program.use();
    TOMO_GL_CHECK(glBindTextureUnit(binding::kRayVolumeTexture, volume_.id()));
    vao_.bind();
    target_fbo_.bind();
    gl::apply(ForwardPass::kState);
    TOMO_GL_CHECK(glViewport(0, 0, g_.sx, g_.sy));
    TOMO_GL_CHECK(glPixelStorei(GL_PACK_ALIGNMENT, 1));
    const std::size_t image = g_.image_size();
    for (int k0 = 0; k0 < static_cast<int>(list.size()); k0 += per_) {
      const int cnt = std::min<int>(per_, static_cast<int>(list.size()) - k0);
      upload_rays(rays_, table_, list, k0, cnt);
      TOMO_GL_CHECK(glDrawArraysInstanced(GL_TRIANGLES, 0, 3, cnt));
      TOMO_GL_CHECK(glGetTextureSubImage(target_.id(), 0, 0, 0, 0, g_.sx, g_.sy, cnt, GL_RED, GL_FLOAT,
                                         static_cast<GLsizei>(cnt * image * sizeof(float)), out.data() + k0 * image));
    }
    TOMO_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, 0));
  }

  // B on this backend's FDK back-projection kernel (voxel_back_fdk.hpp), exact or hardware
  // bilinear as configured; the cpu's B where a voxel lies behind a source.
  void back_voxel(std::span<const float> projections, std::span<float> volume, std::span<const int> views) override {
    (void)checked_views("fdk gl projector", g_, volume.size(), projections.size(), views);
    if (voxel_back_.covers())
      voxel_back_.run(projections, volume, views, options_.interpolation);
    else
      back_voxel_on_host(g_, projections, volume, views);
  }
  void back(std::span<const float> projections, std::span<float> volume, std::span<const int> views) override {
    const std::vector<int> list = checked_views("fdk gl projector", g_, volume.size(), projections.size(), views);
    const double step = step_mm(g_.grid, options_);
    check_loop_budget("fdk gl projector Aᵀ", 3 + max_samples(g_.grid, step) * (float_atomics_ ? 1 : 9));
    gl::shared_context().make_current();
    const BackPass& pass = back_pass();
    grid_block_.bind(g_.grid);
    pass.ray.step_mm.set(step);
    pass.detector.set({g_.sx, g_.sy});
    pass.first_layer.set(0);
    pass.program.use();
    sum_.clear();
    input_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kRayProjections);
    vao_.bind();
    scatter_fbo_.bind();
    gl::apply(BackPass::kState);
    TOMO_GL_CHECK(glViewport(0, 0, g_.sx, g_.sy));
    const std::size_t image = g_.image_size();
    for (int k0 = 0; k0 < static_cast<int>(list.size()); k0 += per_) {
      const int cnt = std::min<int>(per_, static_cast<int>(list.size()) - k0);
      input_.upload(projections.data() + k0 * image, cnt * image * sizeof(float));
      upload_rays(rays_, table_, list, k0, cnt);
      for (int s = 0; s < sum_.count(); ++s) {
        sum_.bind(s);
        pass.scatter.slab.set({sum_.first(s), sum_.depth(s)});
        TOMO_GL_CHECK(glDrawArraysInstanced(GL_TRIANGLES, 0, 3, cnt));
      }
      TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
    }
    TOMO_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, 0));
    TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
    sum_.download(volume);
  }

  void synchronize() override {
    gl::shared_context().make_current();
    glFinish();
  }

  std::string describe() const override {
    return str_cat("gl raster projector (ray-marching fragments, hardware trilinear 3D-texture fetches every ",
                   options_.step_voxels, " voxel; Aᵀ by scattering fragments into ", sum_.count(), " SSBO slab(s), ",
                   float_atomics_ ? "float atomics" : "CAS atomics", "): ", gl::shared_context().info().summary());
  }

 private:
  const ForwardPass& forward_pass() { return gl::layered_pass<ForwardPass>("fdk/forward_project_raster.frag.glsl"); }
  const BackPass& back_pass() {
    gl::Defines defines;
    if (float_atomics_) defines.emplace_back("FLOAT_ATOMICS", "1");
    return gl::layered_pass<BackPass>("fdk/back_project_raster.frag.glsl", defines);
  }

  ConeGeometry g_;
  VoxelBackThroughFdk voxel_back_{"gl"};  // B
  std::vector<double> table_;
  bool float_atomics_ = false;
  int per_ = 1;
  gl::GridBlock grid_block_;
  gl::Texture volume_, target_;
  ScatterSlabs sum_;  // Aᵀ's output
  gl::Buffer rays_, input_;
  gl::VertexArray vao_;
  gl::Framebuffer target_fbo_, scatter_fbo_;
};

const BackendRegistrar<ConeBeamProjector> kRegisterGl({"gl", kPriorityGlRaster, [] { return gl::availability({}); },
                                                       [] { return std::make_unique<GlRasterProjector>(); }});

}  // namespace
}  // namespace tomo::fdk
