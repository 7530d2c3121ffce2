// `gl-compute` backend of the fdk back-projection: the RabbitCT update as a GLSL compute pass
// (shaders/fdk/backproject.comp.glsl) over the volume in z-slab SSBOs (≤ 512 MiB and ≤
// GL_MAX_SHADER_STORAGE_BLOCK_SIZE each: a 1024³ volume is 4 GiB, more than one SSBO binding may
// address), projections in a 2D array texture with border 0, matrices in an SSBO; up to 64
// projections per dispatch, one dispatch per slab.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/fdk/backprojector.hpp"
#include "renderer/fdk/gl_common.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/objects.hpp"

namespace tomo::fdk {
namespace {

constexpr int kMaxPerDispatch = 64;
constexpr int kVoxelsPerThread = 8;  // VOXELS_PER_THREAD in the shader
constexpr std::size_t kSlabBytes = 512ull * 1024 * 1024;

// backproject.comp.glsl: the batch's update of one z-slab SSBO.
struct ComputePass {
  const gl::Program& program;
  BackprojectionUniforms batch;
  gl::Uniform<gl::Vec3i> slab_dims;
  explicit ComputePass(const gl::Program& p) : program(p), batch(p), slab_dims(p, "u_slab_dims") {}
};

// Slices per slab: as many as fit in 512 MiB, in GL_MAX_SHADER_STORAGE_BLOCK_SIZE (max_block, 0 =
// unknown) and, when set, in fdk.device_memory_mb (tests use it to force several slabs); ≥ 1, ≤ nz.
int slab_depth(std::size_t slice_bytes, int nz, std::uint64_t max_block, double device_memory_mb) {
  std::uint64_t bytes = kSlabBytes;
  if (max_block > 0) bytes = std::min(bytes, max_block);
  if (device_memory_mb > 0) bytes = std::min(bytes, static_cast<std::uint64_t>(device_memory_mb * 1048576.0));
  return static_cast<int>(std::clamp<std::uint64_t>(bytes / slice_bytes, 1, static_cast<std::uint64_t>(std::max(nz, 1))));
}

class GlBackprojector final : public ConeBeamBackprojector {
 public:
  void reset(const Grid3& grid) override {
    gl::shared_context().make_current();
    const long long max_block = gl::shared_context().info().caps.max_ssbo_block_size;
    const int nz = grid.dims[2];
    const std::size_t slice = static_cast<std::size_t>(grid.dims[0]) * grid.dims[1] * sizeof(float);
    if (max_block > 0 && slice > static_cast<std::uint64_t>(max_block))
      throw UnavailableError(str_cat("fdk gl-compute: one ", grid.dims[0], "x", grid.dims[1],
                                     " slice exceeds GL_MAX_SHADER_STORAGE_BLOCK_SIZE (", max_block, " bytes)"));
    slab_nz_ = slab_depth(slice, nz, static_cast<std::uint64_t>(std::max<long long>(max_block, 0)),
                          options_.device_memory_mb);
    grid_ = grid;
    slabs_.clear();
    for (int k0 = 0; k0 < nz; k0 += slab_nz_) {
      slabs_.emplace_back(slice * static_cast<std::size_t>(std::min(slab_nz_, nz - k0)));
      slabs_.back().clear_zero();
    }
  }

  void prepare(const ProjectionView& all) override {
    gl::shared_context().make_current();
    ensure_texture(all.sx, all.sy);
    (void)pass();  // compile outside the timed region
    glFinish();
  }

  void backproject(const ProjectionView& b) override {
    if (slabs_.empty()) throw Error("fdk gl-compute: backproject() before reset()");
    gl::shared_context().make_current();
    const int per = ensure_texture(b.sx, b.sy);
    const ComputePass& pass = this->pass();
    set_backprojection_uniforms(pass.program, pass.batch, grid_block_, grid_, b);
    const std::size_t image = static_cast<std::size_t>(b.sx) * b.sy;
    std::vector<float> m(kMaxPerDispatch * 12);
    for (int n0 = 0; n0 < b.count; n0 += per) {
      const int cnt = std::min(per, b.count - n0);
      TOMO_GL_CHECK(glTextureSubImage3D(projections_.id(), 0, 0, 0, 0, b.sx, b.sy, cnt, GL_RED, GL_FLOAT,
                                        b.pixels + n0 * image));
      for (int n = 0; n < cnt; ++n)
        for (int e = 0; e < 12; ++e) m[12 * n + e] = static_cast<float>(b.matrices[n0 + n].a[e]);
      matrices_.upload(m.data(), cnt * 12 * sizeof(float));
      matrices_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kMatrices);
      TOMO_GL_CHECK(glBindTextureUnit(binding::kProjections, projections_.id()));
      pass.batch.count.set(cnt);
      for (std::size_t s = 0; s < slabs_.size(); ++s) {
        const int k0 = static_cast<int>(s) * slab_nz_, depth = std::min(slab_nz_, grid_.dims[2] - k0);
        slabs_[s].bind_base(GL_SHADER_STORAGE_BUFFER, binding::kVolume);
        pass.slab_dims.set({grid_.dims[0], grid_.dims[1], depth});
        pass.batch.k0.set(k0);
        pass.program.dispatch(grid_.dims[0], grid_.dims[1], (depth + kVoxelsPerThread - 1) / kVoxelsPerThread);
      }
      TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT));
    }
  }

  void synchronize() override {
    gl::shared_context().make_current();
    glFinish();
  }

  VolumeF volume() override {
    gl::shared_context().make_current();
    VolumeF v(grid_);
    const std::size_t slice = static_cast<std::size_t>(grid_.dims[0]) * grid_.dims[1];
    for (std::size_t s = 0; s < slabs_.size(); ++s)
      slabs_[s].download(v.data.data() + s * static_cast<std::size_t>(slab_nz_) * slice, slabs_[s].bytes());
    return v;
  }

  std::string describe() const override {
    return "gl-compute (" + gl::shared_context().info().summary() + ", " + to_string(options_.interpolation) + " bilinear, " +
           std::to_string(slabs_.size()) + " SSBO slab(s))";
  }

 private:
  // Layers per dispatch; (re)creates the projection array texture and the matrix buffer.
  int ensure_texture(int sx, int sy) {
    const int per = options_.projections_per_launch > 0 ? std::min(options_.projections_per_launch, kMaxPerDispatch)
                                                         : 32;
    if (!projections_ || projections_.width() != sx || projections_.height() != sy || projections_.depth() != per) {
      projections_ = gl::Texture::create_2d_array(GL_R32F, sx, sy, per);
      projections_.set_wrap(GL_CLAMP_TO_BORDER);  // border colour (0,0,0,0): taps outside read 0
      projections_.set_filter(GL_LINEAR, GL_LINEAR);
      matrices_ = gl::Buffer(kMaxPerDispatch * 12 * sizeof(float));
    }
    return per;
  }
  const ComputePass& pass() {
    gl::Defines defines;
    if (options_.interpolation == Interpolation::exact) defines.push_back({"EXACT", "1"});
    return gl::shaders().get_compute<ComputePass>("fdk/backproject.comp.glsl", defines);
  }

  Grid3 grid_;
  gl::GridBlock grid_block_;
  int slab_nz_ = 1;
  std::vector<gl::Buffer> slabs_;  // z-slab k holds slices [k·slab_nz_, min((k+1)·slab_nz_, nz))
  gl::Buffer matrices_;
  gl::Texture projections_;
};

const BackendRegistrar<ConeBeamBackprojector> kRegisterGlCompute({"gl-compute", kPriorityGlCompute,
                                                      [] { return gl::availability({}); },
                                                      [] { return std::make_unique<GlBackprojector>(); }});

}  // namespace
}  // namespace tomo::fdk
