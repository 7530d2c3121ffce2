// `gl` backend of the fdk back-projection: the raster twin of gl-compute. The volume lives in R32F
// 3D textures (z-slabs of ≤ 512 MiB) attached as layered render targets; per batch of up to 64
// projections (an R32F 2D array texture, border 0, matrices in a UBO) one instanced draw per slab
// puts a full-viewport triangle on every z-slice, and the fragment shader
// (shaders/fdk/backproject_raster.frag.glsl) adds the batch's RabbitCT update through additive
// blending. Same precision contract as gl-compute (fp32 per batch, fp32 accumulation in the target).
#include <algorithm>
#include <array>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/fdk/backprojector.hpp"
#include "renderer/fdk/gl_common.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/pipeline_state.hpp"

namespace tomo::fdk {
namespace {

// backproject_raster.frag.glsl on the layered triangle: adds the batch's update to the slab.
struct RasterPass {
  static constexpr gl::PipelineState kState{.blend = gl::Blend::Add};  // target += this batch's update
  const gl::Program& program;
  BackprojectionUniforms batch;
  gl::Uniform<int> first_layer;
  explicit RasterPass(const gl::Program& p) : program(p), batch(p), first_layer(p, "u_first_layer") {}
};

constexpr int kMaxPerDraw = 64;                          // MAX_PROJECTIONS in the shader
constexpr std::size_t kSlabBytes = 512ull * 1024 * 1024;  // keeps each readback under GLsizei

class GlRasterBackprojector final : public ConeBeamBackprojector {
 public:
  GlRasterBackprojector() {
    gl::shared_context().make_current();
    fbo_ = gl::Framebuffer::create();
    vao_ = gl::VertexArray::create();
  }

  void reset(const Grid3& grid) override {
    gl::shared_context().make_current();
    const gl::Capabilities& caps = gl::shared_context().info().caps;
    const int max3d = caps.max_3d_texture_size, max_layers = caps.max_framebuffer_layers;
    const int max_fb = caps.max_framebuffer_width;
    const int nx = grid.dims[0], ny = grid.dims[1], nz = grid.dims[2];
    if (nx > std::min<int>(max3d, max_fb) || ny > std::min<int>(max3d, max_fb))
      throw UnavailableError(str_cat("fdk gl: a ", nx, "x", ny,
                                     " slice exceeds this GL's 3D texture/framebuffer size (",
                                     std::min<int>(max3d, max_fb), ")"));
    const std::size_t slice = static_cast<std::size_t>(nx) * ny * sizeof(float);
    // fdk.device_memory_mb, when set, also caps one slab (tests use it to force several).
    std::size_t slab_bytes = kSlabBytes;
    if (options_.device_memory_mb > 0)
      slab_bytes = std::min(slab_bytes, static_cast<std::size_t>(options_.device_memory_mb * 1048576.0));
    slab_nz_ = static_cast<int>(std::clamp<std::size_t>(slab_bytes / slice, 1, std::min(max3d, max_layers)));
    slab_nz_ = std::min(slab_nz_, nz);
    grid_ = grid;
    slabs_.clear();
    for (int k0 = 0; k0 < nz; k0 += slab_nz_) {
      slabs_.push_back(gl::Texture::create_3d(GL_R32F, nx, ny, std::min(slab_nz_, nz - k0)));
      slabs_.back().clear_zero();
    }
  }

  void prepare(const ProjectionView& all) override {
    gl::shared_context().make_current();
    ensure_textures(all.sx, all.sy);
    (void)pass();  // compile outside the timed region
    glFinish();
  }

  void backproject(const ProjectionView& b) override {
    if (slabs_.empty()) throw Error("fdk gl: backproject() before reset()");
    gl::shared_context().make_current();
    const int per = ensure_textures(b.sx, b.sy);
    const RasterPass& pass = this->pass();
    set_backprojection_uniforms(pass.program, pass.batch, grid_block_, grid_, b);
    pass.first_layer.set(0);
    vao_.bind();
    fbo_.bind();
    gl::apply(RasterPass::kState);
    TOMO_GL_CHECK(glViewport(0, 0, grid_.dims[0], grid_.dims[1]));
    const std::size_t image = static_cast<std::size_t>(b.sx) * b.sy;
    std::vector<float> rows(kMaxPerDraw * 12);
    for (int n0 = 0; n0 < b.count; n0 += per) {
      const int cnt = std::min(per, b.count - n0);
      // Two projection textures and matrix buffers in turn: the upload of batch b+1 does not
      // have to wait for the draws that read batch b.
      const int slot = next_;
      const gl::Texture& tex = projections_[slot];
      const gl::Buffer& ubo = matrices_[slot];
      next_ ^= 1;
      // Wait until the draws that last read this slot are done before overwriting it. GL orders
      // the upload after them anyway, but on the H200 a 1024^3 volume with 16 batches queued
      // without this wait came out 53.6 dB from the cpu (the same run with <= 4 batches: 100 dB).
      fences_[slot].wait("fdk gl: waiting for a projection batch");
      TOMO_GL_CHECK(glTextureSubImage3D(tex.id(), 0, 0, 0, 0, b.sx, b.sy, cnt, GL_RED, GL_FLOAT,
                                        b.pixels + n0 * image));
      for (int n = 0; n < cnt; ++n)
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 4; ++c)
            rows[12 * n + 4 * r + c] = static_cast<float>(b.matrices[n0 + n].a[3 * c + r]);
      TOMO_GL_CHECK(glNamedBufferSubData(ubo.id(), 0, static_cast<GLsizeiptr>(cnt * 12 * sizeof(float)), rows.data()));
      TOMO_GL_CHECK(glBindBufferBase(GL_UNIFORM_BUFFER, binding::kMatrixRows, ubo.id()));
      TOMO_GL_CHECK(glBindTextureUnit(binding::kProjections, tex.id()));
      pass.batch.count.set(cnt);
      for (std::size_t s = 0; s < slabs_.size(); ++s) {
        fbo_.attach(GL_COLOR_ATTACHMENT0, slabs_[s]);  // layered: gl_Layer picks the z-slice
        if (!checked_) {
          fbo_.set_draw_buffers(1);
          fbo_.check_complete();
          checked_ = true;
        }
        pass.batch.k0.set(static_cast<int>(s) * slab_nz_);
        TOMO_GL_CHECK(glDrawArraysInstanced(GL_TRIANGLES, 0, 3, slabs_[s].depth()));
      }
      fences_[slot] = gl::Fence::insert();
    }
    gl::apply(gl::PipelineState{});  // passes outside fdk expect blending off
    TOMO_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, 0));
  }

  void synchronize() override {
    gl::shared_context().make_current();
    glFinish();
    for (gl::Fence& f : fences_) f.wait("fdk gl: waiting for a projection batch");
  }

  VolumeF volume() override {
    gl::shared_context().make_current();
    VolumeF v(grid_);
    const std::size_t slice = static_cast<std::size_t>(grid_.dims[0]) * grid_.dims[1];
    TOMO_GL_CHECK(glPixelStorei(GL_PACK_ALIGNMENT, 1));
    for (std::size_t s = 0; s < slabs_.size(); ++s) {
      const std::size_t count = slice * slabs_[s].depth();
      TOMO_GL_CHECK(glGetTextureImage(slabs_[s].id(), 0, GL_RED, GL_FLOAT, static_cast<GLsizei>(count * sizeof(float)),
                                      v.data.data() + s * slab_nz_ * slice));
    }
    return v;
  }

  std::string describe() const override {
    return "gl raster (" + gl::shared_context().info().summary() + ", " + to_string(options_.interpolation) +
           " bilinear, " + std::to_string(slabs_.size()) + " 3D-texture slab(s))";
  }

 private:
  // Layers per draw; (re)creates the two projection array textures and matrix buffers.
  int ensure_textures(int sx, int sy) {
    const int per = options_.projections_per_launch > 0 ? std::min(options_.projections_per_launch, kMaxPerDraw) : 32;
    if (!projections_[0] || projections_[0].width() != sx || projections_[0].height() != sy ||
        projections_[0].depth() != per) {
      for (int i = 0; i < 2; ++i) {
        projections_[i] = gl::Texture::create_2d_array(GL_R32F, sx, sy, per);
        projections_[i].set_wrap(GL_CLAMP_TO_BORDER);  // border colour (0,0,0,0): taps outside read 0
        projections_[i].set_filter(GL_LINEAR, GL_LINEAR);
        matrices_[i] = gl::Buffer(kMaxPerDraw * 12 * sizeof(float));
      }
      next_ = 0;
    }
    return per;
  }
  const RasterPass& pass() {
    gl::Defines defines;
    if (options_.interpolation == Interpolation::exact) defines.push_back({"EXACT", "1"});
    return gl::layered_pass<RasterPass>("fdk/backproject_raster.frag.glsl", defines);
  }

  Grid3 grid_;
  gl::GridBlock grid_block_;
  int slab_nz_ = 1;
  std::vector<gl::Texture> slabs_;
  gl::Framebuffer fbo_;
  gl::VertexArray vao_;
  std::array<gl::Texture, 2> projections_;
  std::array<gl::Buffer, 2> matrices_;
  int next_ = 0;
  std::array<gl::Fence, 2> fences_;  // after the draws that last read each slot
  bool checked_ = false;
};

const BackendRegistrar<ConeBeamBackprojector> kRegisterGl({"gl", kPriorityGlRaster, [] { return gl::availability({}); },
                                                             [] { return std::make_unique<GlRasterBackprojector>(); }});

}  // namespace
}  // namespace tomo::fdk
