// `gl-compute` backend of the fdk back-projection: the RabbitCT update as a GLSL compute pass
// (shaders/fdk/backproject.comp.glsl) over a volume SSBO, projections in a 2D array texture with
// border 0, matrices in an SSBO; up to 64 projections per dispatch.
#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/registry.hpp"
#include "fdk/backprojector.hpp"
#include "gl/engine.hpp"
#include "gl/objects.hpp"

namespace tomo::fdk {
namespace {

constexpr int kMaxPerDispatch = 64;
constexpr int kVoxelsPerThread = 8;  // VOXELS_PER_THREAD in the shader

class GlBackprojector final : public ConeBeamBackprojector {
 public:
  void reset(const Grid3& grid) override {
    gl::shared_context().make_current();
    grid_ = grid;
    volume_ = gl::Buffer(grid.count() * sizeof(float));
    volume_.clear_zero();
  }

  void prepare(const ProjectionView& all) override {
    gl::shared_context().make_current();
    ensure_texture(all.sx, all.sy);
    (void)program();  // compile outside the timed region
    glFinish();
  }

  void backproject(const ProjectionView& b) override {
    if (!volume_) throw Error("fdk gl-compute: backproject() before reset()");
    gl::shared_context().make_current();
    const int per = ensure_texture(b.sx, b.sy);
    const gl::Program& prog = program();
    prog.use();
    prog.set("u_dims", grid_.dims[0], grid_.dims[1], grid_.dims[2]);
    prog.set("u_origin", float(grid_.origin_mm[0]), float(grid_.origin_mm[1]), float(grid_.origin_mm[2]));
    prog.set("u_voxel", float(grid_.voxel_mm[0]), float(grid_.voxel_mm[1]), float(grid_.voxel_mm[2]));
    prog.set("u_detector", b.sx, b.sy);
    prog.set("u_projections", 0);
    const std::size_t image = static_cast<std::size_t>(b.sx) * b.sy;
    std::vector<float> m(kMaxPerDispatch * 12);
    for (int n0 = 0; n0 < b.count; n0 += per) {
      const int cnt = std::min(per, b.count - n0);
      TOMO_GL_CHECK(glTextureSubImage3D(projections_.id(), 0, 0, 0, 0, b.sx, b.sy, cnt, GL_RED, GL_FLOAT,
                                        b.pixels + n0 * image));
      for (int n = 0; n < cnt; ++n)
        for (int e = 0; e < 12; ++e) m[12 * n + e] = static_cast<float>(b.matrices[n0 + n].a[e]);
      matrices_.upload(m.data(), cnt * 12 * sizeof(float));
      volume_.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
      matrices_.bind_base(GL_SHADER_STORAGE_BUFFER, 1);
      TOMO_GL_CHECK(glBindTextureUnit(0, projections_.id()));
      prog.set("u_count", cnt);
      prog.dispatch(grid_.dims[0], grid_.dims[1], (grid_.dims[2] + kVoxelsPerThread - 1) / kVoxelsPerThread);
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
    volume_.download(v.data.data(), v.data.size() * sizeof(float));
    return v;
  }

  std::string describe() const override {
    return "gl-compute (" + gl::shared_context().info().summary() + ", " + options_.interpolation + " bilinear)";
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
  const gl::Program& program() {
    return options_.interpolation == "exact" ? gl::shaders().compute("fdk/backproject.comp.glsl", {{"EXACT", "1"}})
                                             : gl::shaders().compute("fdk/backproject.comp.glsl");
  }

  Grid3 grid_;
  gl::Buffer volume_, matrices_;
  gl::Texture projections_;
};

const BackendRegistrar<ConeBeamBackprojector> reg_gl({"gl-compute", kPriorityGlCompute,
                                                      [] { return gl::availability(); },
                                                      [] { return std::make_unique<GlBackprojector>(); }});

}  // namespace
}  // namespace tomo::fdk
