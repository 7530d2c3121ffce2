// The glpet `gl-compute` backend: the line set of docs/glpet.md §2 in compute shaders
// (shaders/glpet/): forward projection by scatter with float atomics ([Toth2010] §III as
// shooting), back-projections by gathering per voxel ([Toth2010] §IV), x/ỹ/y/s in GL buffers.
#include <algorithm>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/glpet/bindings.hpp"
#include "renderer/glpet/gl_common.hpp"

namespace tomo::glpet {

namespace {

// The voxel range of one dispatch, in forward.comp.glsl and gather.comp.glsl.
struct VoxelRangeUniforms {
  gl::Uniform<unsigned> first_voxel, voxel_count;
  explicit VoxelRangeUniforms(const gl::Program& p) : first_voxel(p, "u_first_voxel"), voxel_count(p, "u_voxel_count") {}
};

// forward.comp.glsl: scatter of x along the lines into ỹ.
struct ForwardPass {
  const gl::Program& program;
  LineSetUniforms line_set;
  VoxelRangeUniforms range;
  explicit ForwardPass(const gl::Program& p) : program(p), line_set(p), range(p) {}
};

// gather.comp.glsl: per voxel, the sums over its lines into b and s.
struct GatherPass {
  const gl::Program& program;
  LineSetUniforms line_set;
  VoxelRangeUniforms range;
  gl::Uniform<int> mode, want_b, want_sens, accumulate;
  explicit GatherPass(const gl::Program& p)
      : program(p), line_set(p), range(p), mode(p, "u_mode"), want_b(p, "u_want_b"), want_sens(p, "u_want_sens"),
        accumulate(p, "u_accumulate") {}
};

// correspondence.comp.glsl: the correspondence image of one sample position.
struct CorrespondenceComputePass {
  const gl::Program& program;
  LineSetUniforms line_set;
  gl::Uniform<gl::Vec3d> v;
  explicit CorrespondenceComputePass(const gl::Program& p) : program(p), line_set(p), v(p, "u_v") {}
};

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
    const auto& pass = gl::shaders().get_compute<ForwardPass>("glpet/forward.comp.glsl");
    pass.program.use();
    bind_common();
    x.buffer().bind_base(GL_SHADER_STORAGE_BUFFER, binding::kImage);
    y.buffer().bind_base(GL_SHADER_STORAGE_BUFFER, binding::kLors);
    TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
    for (std::size_t pair = 0; pair < sys_.scanner.pairs.size(); ++pair) {
      pass.line_set.set(sys_, pair, sigma_empty_);
      over_voxels(pass.range);
    }
    TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT));
  }

  void back(const BackendBuffer& z, BackendBuffer& b) override { gather(GatherMode::Back, &z, nullptr, &b, nullptr); }

  void back_ratio(const BackendBuffer& y, const BackendBuffer& t, BackendBuffer& b, BackendBuffer* sens) override {
    gather(GatherMode::Ratio, &y, &t, &b, sens);
  }

  void sensitivity(BackendBuffer& sens) override {
    gather(GatherMode::Sensitivity, nullptr, nullptr, nullptr, &sens);
  }

  void mlem_update(BackendBuffer& x, const BackendBuffer& b, const BackendBuffer& s) override {
    mlem_update_pass(gl_buffer(x, "gl-compute mlem_update"), gl_buffer(b, "gl-compute mlem_update"),
                     gl_buffer(s, "gl-compute mlem_update"));
  }

  bool subset_update(BackendBuffer& x, const BackendBuffer& b, const BackendBuffer& s) override {
    subset_update_pass(gl_buffer(x, "gl-compute subset_update"), gl_buffer(b, "gl-compute subset_update"),
                       gl_buffer(s, "gl-compute subset_update"));
    return true;
  }

  bool correspondence_image(std::size_t pair, const Vec3& v, std::vector<CorrespondencePixel>& out) override {
    if (pair >= sys_.scanner.pairs.size()) throw Error(str_cat("glpet gl-compute: no pair ", pair));
    gl::shared_context().make_current();
    const ModulePair& pr = sys_.scanner.pairs[pair];
    const int W = sys_.R * pr.n_a(), H = sys_.R * pr.n_t();
    gl::Buffer img(std::size_t(W) * H * 4 * sizeof(float));
    const auto& pass = gl::shaders().get_compute<CorrespondenceComputePass>("glpet/correspondence.comp.glsl");
    pass.program.use();
    bind_common();
    img.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kCorrespondenceImage);
    pass.line_set.set(sys_, pair, sigma_empty_);
    pass.v.set({v[0], v[1], v[2]});
    pass.program.dispatch(W * H);
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
    sigma_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kSigma);
    offsets_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kOffsets);
  }
  // One work group per voxel, in dispatches of at most kMaxGroups groups.
  void over_voxels(const VoxelRangeUniforms& range) const {
    const std::size_t nvox = sys_.voxel_count();
    const std::size_t begin = range_count_ ? std::min(range_first_, nvox) : 0;
    const std::size_t end = range_count_ ? std::min(nvox, range_first_ + range_count_) : nvox;
    range.voxel_count.set(unsigned(end));
    for (std::size_t first = begin; first < end; first += kMaxGroups) {
      range.first_voxel.set(unsigned(first));
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

  // b = Aᵀz (Back) or Σ A y/ỹ (Ratio); either of b and sens may be absent.
  void gather(GatherMode mode, const BackendBuffer* zb, const BackendBuffer* tb, BackendBuffer* bb, BackendBuffer* sb) {
    gl::shared_context().make_current();
    const GlBuffer* z = zb ? &gl_buffer(*zb, "gl-compute back") : nullptr;
    const GlBuffer* t = tb ? &gl_buffer(*tb, "gl-compute back") : nullptr;
    GlBuffer* b = bb ? &gl_buffer(*bb, "gl-compute back") : nullptr;
    GlBuffer* s = sb ? &gl_buffer(*sb, "gl-compute back") : nullptr;
    if (z) check(z->size() == sys_.lor_count(), "back");
    if (t) check(t->size() == sys_.lor_count(), "back");
    if (b) check(b->size() == sys_.voxel_count(), "back");
    if (s) check(s->size() == sys_.voxel_count(), "back");
    const auto& pass = gl::shaders().get_compute<GatherPass>("glpet/gather.comp.glsl");
    pass.program.use();
    bind_common();
    // Unused bindings still need a buffer bound: the sigma buffer stands in (never read).
    (z ? z->buffer() : sigma_).bind_base(GL_SHADER_STORAGE_BUFFER, binding::kLors);
    (t ? t->buffer() : sigma_).bind_base(GL_SHADER_STORAGE_BUFFER, binding::kLorsEstimate);
    (b ? b->buffer() : dummy()).bind_base(GL_SHADER_STORAGE_BUFFER, binding::kBack);
    (s ? s->buffer() : dummy()).bind_base(GL_SHADER_STORAGE_BUFFER, binding::kSensitivity);
    pass.mode.set(int(mode));
    pass.want_b.set(b && z ? 1 : 0);
    pass.want_sens.set(s ? 1 : 0);
    TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
    for (std::size_t pair = 0; pair < sys_.scanner.pairs.size(); ++pair) {
      pass.line_set.set(sys_, pair, sigma_empty_);
      pass.accumulate.set(pair > 0 ? 1 : 0);
      over_voxels(pass.range);
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
