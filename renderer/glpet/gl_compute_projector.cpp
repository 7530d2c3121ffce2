// The glpet `gl-compute` backend: the line set of docs/glpet.md §2 in compute shaders
// (shaders/glpet/): forward projection by scatter with float atomics (seed §III as
// shooting), back-projections by gathering per voxel (seed §IV), x/ỹ/y/s in GL buffers.
#include <algorithm>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/glpet/gl_common.hpp"

namespace tomo::glpet {

namespace {

constexpr const char* kAtomicFloat = "GL_NV_shader_atomic_float";
constexpr unsigned kMaxGroups = 65535;  // per dispatch (GL minimum of MAX_COMPUTE_WORK_GROUP_COUNT)

class GlComputeProjector final : public Projector {
 public:
  std::string describe() const override { return "gl-compute"; }

  void configure(const SystemModel& system, const ProjectorOptions& = {}) override {
    system.validate();
    gl::shared_context().make_current();
    gl::require_extensions("glpet gl-compute", {kAtomicFloat});
    sys_ = system;
    sigma_empty_ = std::all_of(sys_.sigma_t.data.begin(), sys_.sigma_t.data.end(), [](float s) { return s == 0.f; });
    sigma_ = gl::Buffer::from(sys_.sigma_t.data.empty() ? std::vector<float>{0.f} : sys_.sigma_t.data);
    offsets_ = offsets_buffer(sys_.N);
  }

  std::unique_ptr<BackendBuffer> make_image() override { return make(sys_.voxel_count()); }
  std::unique_ptr<BackendBuffer> make_lors() override { return make(sys_.lor_count()); }

  void forward(const BackendBuffer& xb, BackendBuffer& yb) override {
    const GlBuffer& x = gl_buffer(xb, "gl-compute forward");
    GlBuffer& y = gl_buffer(yb, "gl-compute forward");
    check(x.size() == sys_.voxel_count() && y.size() == sys_.lor_count(), "forward");
    gl::shared_context().make_current();
    y.clear();
    const gl::Program& p = gl::shaders().compute("glpet/forward.comp.glsl");
    p.use();
    bind_common();
    x.buffer().bind_base(GL_SHADER_STORAGE_BUFFER, 2);
    y.buffer().bind_base(GL_SHADER_STORAGE_BUFFER, 3);
    TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
    for (std::size_t pair = 0; pair < sys_.scanner.pairs.size(); ++pair) {
      set_line_set_uniforms(p, sys_, pair, sigma_empty_);
      over_voxels(p);
    }
    TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT));
  }

  void back(const BackendBuffer& z, BackendBuffer& b) override { gather(0, &z, nullptr, &b, nullptr); }

  void back_ratio(const BackendBuffer& y, const BackendBuffer& t, BackendBuffer& b, BackendBuffer* sens) override {
    gather(1, &y, &t, &b, sens);
  }

  void sensitivity(BackendBuffer& sens) override { gather(0, nullptr, nullptr, nullptr, &sens); }

  void mlem_update(BackendBuffer& x, const BackendBuffer& b, const BackendBuffer& s) override {
    mlem_update_pass(gl_buffer(x, "gl-compute mlem_update"), gl_buffer(b, "gl-compute mlem_update"),
                     gl_buffer(s, "gl-compute mlem_update"));
  }

  bool correspondence_image(std::size_t pair, const Vec3& v, std::vector<CorrespondencePixel>& out) override {
    if (pair >= sys_.scanner.pairs.size()) throw Error(str_cat("glpet gl-compute: no pair ", pair));
    gl::shared_context().make_current();
    const ModulePair& pr = sys_.scanner.pairs[pair];
    const int W = sys_.R * pr.n_a(), H = sys_.R * pr.n_t();
    gl::Buffer img(std::size_t(W) * H * 4 * sizeof(float));
    const gl::Program& p = gl::shaders().compute("glpet/correspondence.comp.glsl");
    p.use();
    bind_common();
    img.bind_base(GL_SHADER_STORAGE_BUFFER, 3);
    set_line_set_uniforms(p, sys_, pair, sigma_empty_);
    TOMO_GL_CHECK(glProgramUniform3d(p.id(), p.uniform("u_v"), v[0], v[1], v[2]));
    p.dispatch(W * H);
    TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
    const auto f = img.read<float>();
    out.assign(std::size_t(W) * H, CorrespondencePixel{});
    for (std::size_t i = 0; i < out.size(); ++i)
      if (f[4 * i + 3] != 0.f) out[i] = {f[4 * i], f[4 * i + 1], f[4 * i + 2]};
    return true;
  }

  void synchronize() override { gl_finish(); }

 private:
  static std::unique_ptr<BackendBuffer> make(std::size_t n) {
    gl::shared_context().make_current();
    return std::make_unique<GlBuffer>(n);
  }
  static void check(bool ok, const char* what) {
    if (!ok) throw Error(str_cat("glpet gl-compute ", what, ": buffer size mismatch"));
  }
  void bind_common() const {
    sigma_.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
    offsets_.bind_base(GL_SHADER_STORAGE_BUFFER, 1);
  }
  // One work group per voxel, in dispatches of at most kMaxGroups groups.
  void over_voxels(const gl::Program& p) const {
    const std::size_t nvox = sys_.voxel_count();
    const std::size_t begin = range_count_ ? std::min(range_first_, nvox) : 0;
    const std::size_t end = range_count_ ? std::min(nvox, range_first_ + range_count_) : nvox;
    p.set("u_voxel_count", unsigned(end));
    for (std::size_t first = begin; first < end; first += kMaxGroups) {
      p.set("u_first_voxel", unsigned(first));
      TOMO_GL_CHECK(glDispatchCompute(GLuint(std::min<std::size_t>(kMaxGroups, end - first)), 1, 1));
    }
  }
  std::size_t range_first_ = 0, range_count_ = 0;

 public:
  bool restrict_voxels(std::size_t first, std::size_t count) override {
    range_first_ = first;
    range_count_ = count;
    return true;
  }

 private:

  // mode 0: b = Aᵀz; mode 1: b = Σ A y/ỹ. Either of b and sens may be absent.
  void gather(int mode, const BackendBuffer* zb, const BackendBuffer* tb, BackendBuffer* bb, BackendBuffer* sb) {
    gl::shared_context().make_current();
    const GlBuffer* z = zb ? &gl_buffer(*zb, "gl-compute back") : nullptr;
    const GlBuffer* t = tb ? &gl_buffer(*tb, "gl-compute back") : nullptr;
    GlBuffer* b = bb ? &gl_buffer(*bb, "gl-compute back") : nullptr;
    GlBuffer* s = sb ? &gl_buffer(*sb, "gl-compute back") : nullptr;
    if (z) check(z->size() == sys_.lor_count(), "back");
    if (t) check(t->size() == sys_.lor_count(), "back");
    if (b) check(b->size() == sys_.voxel_count(), "back");
    if (s) check(s->size() == sys_.voxel_count(), "back");
    const gl::Program& p = gl::shaders().compute("glpet/gather.comp.glsl");
    p.use();
    bind_common();
    // Unused bindings still need a buffer bound: the sigma buffer stands in (never read).
    (z ? z->buffer() : sigma_).bind_base(GL_SHADER_STORAGE_BUFFER, 3);
    (t ? t->buffer() : sigma_).bind_base(GL_SHADER_STORAGE_BUFFER, 4);
    (b ? b->buffer() : dummy()).bind_base(GL_SHADER_STORAGE_BUFFER, 5);
    (s ? s->buffer() : dummy()).bind_base(GL_SHADER_STORAGE_BUFFER, 6);
    p.set("u_mode", mode);
    p.set("u_want_b", b && z ? 1 : 0);
    p.set("u_want_sens", s ? 1 : 0);
    TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
    for (std::size_t pair = 0; pair < sys_.scanner.pairs.size(); ++pair) {
      set_line_set_uniforms(p, sys_, pair, sigma_empty_);
      p.set("u_accumulate", pair > 0 ? 1 : 0);
      over_voxels(p);
      TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
    }
    TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
  }
  const gl::Buffer& dummy() {
    if (!dummy_) dummy_ = gl::Buffer(sizeof(float) * 4);
    return dummy_;
  }

  SystemModel sys_;
  bool sigma_empty_ = true;
  gl::Buffer sigma_, offsets_, dummy_;
};

const BackendRegistrar<Projector> kRegisterGlCompute(
    {"gl-compute", kPriorityGlCompute, [] { return gl::availability({kAtomicFloat}); },
     [] { return std::make_unique<GlComputeProjector>(); }});

}  // namespace
}  // namespace tomo::glpet
