// `gl-compute` ConeBeamProjector: A and Aᵀ of ray_model.hpp as GLSL compute passes
// (shaders/fdk/forward_project.comp.glsl, back_project.comp.glsl), one invocation per detector
// pixel and view, up to 64 views per dispatch. A reads the volume from an R32F 2D array texture
// (one layer per z-slice), each sample's eight taps by two textureGather, with fp32 trilinear
// weights (not the texture unit's filter, whose weights are 8-bit fixed point on NVIDIA): the pair
// agrees with the cpu reference to fp32 rounding and Aᵀ is the exact transpose of A. Aᵀ scatters into z-slab SSBOs with float atomics where the driver has
// GL_NV_shader_atomic_float, an exact CAS loop otherwise.
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
#include "renderer/gl/uniform.hpp"

namespace tomo::fdk {
namespace {

constexpr int kMaxViewsPerDispatch = 64;

// forward_project.comp.glsl's uniforms, which back_project.comp.glsl reads too.
struct RayPass {
  const gl::Program& program;
  RayUniforms ray;
  gl::Uniform<gl::Vec2i> detector;
  gl::Uniform<int> count;
  explicit RayPass(const gl::Program& p) : program(p), ray(p), detector(p, "u_detector"), count(p, "u_count") {}
};
// back_project.comp.glsl: and the bound slab.
struct ScatterPass : RayPass {
  ScatterUniforms scatter;
  explicit ScatterPass(const gl::Program& p) : RayPass(p), scatter(p) {}
};

class GlComputeProjector final : public ConeBeamProjector {
 public:
  void setup(const ConeGeometry& g) override {
    gl::Context& ctx = gl::shared_context();
    ctx.make_current();
    table_ = ray_table(g);  // degenerate views fail here
    const gl::Capabilities& caps = ctx.info().caps;
    if (g.grid.dims[0] > caps.max_texture_size || g.grid.dims[1] > caps.max_texture_size ||
        g.grid.dims[2] > caps.max_array_texture_layers)
      throw UnavailableError(str_cat("fdk gl-compute projector: a ", g.grid.dims[0], "x", g.grid.dims[1], "x",
                                     g.grid.dims[2], " volume exceeds this GL's array textures (",
                                     caps.max_texture_size, " texels a side, ", caps.max_array_texture_layers,
                                     " layers)"));
    g_ = g;
    float_atomics_ = caps.float_atomics;
    per_ = views_per_batch(g, caps.max_ssbo_block_size, std::min(kMaxViewsPerDispatch, std::max(g.views(), 1)));
    volume_ = gl::Texture::create_2d_array(GL_R32F, g.grid.dims[0], g.grid.dims[1], g.grid.dims[2]);
    volume_.set_wrap(GL_CLAMP_TO_BORDER);  // border colour (0,0,0,0): taps beyond x and y read 0
    volume_.set_filter(GL_NEAREST, GL_NEAREST);
    sum_.allocate(g.grid, scatter_slab_depth(g.grid, caps.max_ssbo_block_size));
    projections_ = gl::Buffer(static_cast<std::size_t>(per_) * g.image_size() * sizeof(float));
    rays_ = gl::Buffer(static_cast<std::size_t>(per_) * kRayDoubles * sizeof(double));
    (void)forward_pass();  // compile here, outside the iterations
    (void)back_pass();
    voxel_back_.setup(g);
  }

  void forward(std::span<const float> volume, std::span<float> out, std::span<const int> views) override {
    const std::vector<int> list = checked_views("fdk gl-compute projector", g_, volume.size(), out.size(), views);
    const double step = step_mm(g_.grid, options_);
    check_loop_budget("fdk gl-compute projector A", 3 + max_samples(g_.grid, step));
    gl::shared_context().make_current();
    const RayPass& pass = forward_pass();
    begin(pass, step);
    volume_.upload_float(volume.data(), 1);
    TOMO_GL_CHECK(glBindTextureUnit(binding::kRayVolumeTexture, volume_.id()));
    const std::size_t image = g_.image_size();
    for (int k0 = 0; k0 < static_cast<int>(list.size()); k0 += per_) {
      const int cnt = std::min<int>(per_, static_cast<int>(list.size()) - k0);
      upload_rays(rays_, table_, list, k0, cnt);
      pass.count.set(cnt);
      pass.program.dispatch(g_.sx, g_.sy, cnt);
      TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
      projections_.download(out.data() + k0 * image, cnt * image * sizeof(float));
    }
  }

  // B on this backend's FDK back-projection kernel (voxel_back_fdk.hpp), exact or hardware
  // bilinear as configured; the cpu's B where a voxel lies behind a source.
  void back_voxel(std::span<const float> projections, std::span<float> volume, std::span<const int> views) override {
    (void)checked_views("fdk gl-compute projector", g_, volume.size(), projections.size(), views);
    if (voxel_back_.covers())
      voxel_back_.run(projections, volume, views, options_.interpolation);
    else
      back_voxel_on_host(g_, projections, volume, views);
  }
  void back(std::span<const float> projections, std::span<float> volume, std::span<const int> views) override {
    const std::vector<int> list = checked_views("fdk gl-compute projector", g_, volume.size(), projections.size(), views);
    const double step = step_mm(g_.grid, options_);
    check_loop_budget("fdk gl-compute projector Aᵀ", 3 + max_samples(g_.grid, step) * (float_atomics_ ? 1 : 9));
    gl::shared_context().make_current();
    const ScatterPass& pass = back_pass();
    begin(pass, step);
    sum_.clear();
    const std::size_t image = g_.image_size();
    for (int k0 = 0; k0 < static_cast<int>(list.size()); k0 += per_) {
      const int cnt = std::min<int>(per_, static_cast<int>(list.size()) - k0);
      TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));  // the last batch has read its input
      projections_.upload(projections.data() + k0 * image, cnt * image * sizeof(float));
      upload_rays(rays_, table_, list, k0, cnt);
      pass.count.set(cnt);
      for (int s = 0; s < sum_.count(); ++s) {
        sum_.bind(s);
        pass.scatter.slab.set({sum_.first(s), sum_.depth(s)});
        pass.program.dispatch(g_.sx, g_.sy, cnt);
      }
      TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
    }
    TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
    sum_.download(volume);
  }

  void synchronize() override {
    gl::shared_context().make_current();
    glFinish();
  }

  std::string describe() const override {
    return str_cat("gl-compute projector (ray-driven, fp32 trilinear weights on gathered texels every ",
                   options_.step_voxels, " voxel; Aᵀ into ", sum_.count(), " SSBO slab(s), ",
                   float_atomics_ ? "float atomics" : "CAS atomics", "): ", gl::shared_context().info().summary());
  }

 private:
  // Binds the buffers and sets the uniforms both passes read.
  void begin(const RayPass& pass, double step) {
    grid_block_.bind(g_.grid);
    pass.ray.step_mm.set(step);
    pass.detector.set({g_.sx, g_.sy});
    projections_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kRayProjections);
  }
  const RayPass& forward_pass() { return gl::shaders().get_compute<RayPass>("fdk/forward_project.comp.glsl"); }
  const ScatterPass& back_pass() {
    gl::Defines defines;
    if (float_atomics_) defines.emplace_back("FLOAT_ATOMICS", "1");
    return gl::shaders().get_compute<ScatterPass>("fdk/back_project.comp.glsl", defines);
  }

  ConeGeometry g_;
  VoxelBackThroughFdk voxel_back_{"gl-compute"};  // B
  std::vector<double> table_;
  bool float_atomics_ = false;
  int per_ = 1;
  gl::GridBlock grid_block_;
  gl::Texture volume_;     // A's input
  ScatterSlabs sum_;       // Aᵀ's output
  gl::Buffer projections_, rays_;
};

const BackendRegistrar<ConeBeamProjector> kRegisterGlCompute({"gl-compute", kPriorityGlCompute,
                                                              [] { return gl::availability({}); },
                                                              [] { return std::make_unique<GlComputeProjector>(); }});

}  // namespace
}  // namespace tomo::fdk
