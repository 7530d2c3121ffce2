// The `gl-compute` backend of the oat imaging model (float): H_int = H_eir·D·H_srt and its
// transpose as GLSL compute passes (shaders/oat/: srt, srt_gather, time_stages), every vector in
// an SSBO. H_srt: a work group of 32 per shell sample; exact = fp32 trilinear weights over the α
// SSBO (matched to the transpose), hardware = the sampler's trilinear filter of α in a 3D
// texture. The transpose gathers: a work group per tile of voxels sums the patches that touch it
// in shared memory (compare-and-swap adds there) and writes the tile once; `portable` changes
// nothing now (no float atomics are used).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/params.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/uniform.hpp"
#include "renderer/oat/bindings.hpp"

namespace tomo::oat {
namespace {

// srt.comp.glsl (and srt_gather.comp.glsl): the shell sample's geometry, looked up once at link.
struct ShellPass {
  const gl::Program& program;
  gl::Uniform<gl::Vec3f> grid0;  // centre of voxel (0, 0, 0), mm
  gl::Uniform<gl::Vec3i> dims;
  gl::Uniform<int> transducers, shells;  // Q, M = K + 2
  gl::Uniform<float> ds, c0, t_min, dt, h;
  explicit ShellPass(const gl::Program& p)
      : program(p), grid0(p, "u_grid0"), dims(p, "u_dims"), transducers(p, "u_transducers"), shells(p, "u_shells"),
        ds(p, "u_ds"), c0(p, "u_c0"), t_min(p, "u_t_min"), dt(p, "u_dt"), h(p, "u_h") {}
};

// srt_gather.comp.glsl: the shell uniforms plus the tiles, the transducer chunk and the cap ball.
struct GatherPass : ShellPass {
  gl::Uniform<gl::Vec3i> tiles;
  gl::Uniform<int> q_begin, q_end, accumulate;
  gl::Uniform<gl::Vec3f> centre;
  gl::Uniform<float> rho, margin;
  explicit GatherPass(const gl::Program& p)
      : ShellPass(p), tiles(p, "u_tiles"), q_begin(p, "u_q_begin"), q_end(p, "u_q_end"), accumulate(p, "u_accumulate"),
        centre(p, "u_centre"), rho(p, "u_rho"), margin(p, "u_margin") {}
};
constexpr int kGatherTile = 8;  // srt_gather.comp.glsl's TILE

// The STAGE variants of time_stages.comp.glsl (values from bindings.hpp, so the shader's #if agrees).
enum class TimeStage : int {
  derivative = stage::kStageDerivative,                 // p = D g
  derivative_adjoint = stage::kStageDerivativeAdjoint,  // g = Dᵀ p (K + 2 outputs per transducer)
  eir = stage::kStageEir,                               // u = H_eir p
  eir_adjoint = stage::kStageEirAdjoint,                // p = H_eirᵀ u
};
constexpr TimeStage kTimeStages[] = {TimeStage::derivative, TimeStage::derivative_adjoint, TimeStage::eir,
                                     TimeStage::eir_adjoint};

// time_stages.comp.glsl (every STAGE declares the same uniforms).
struct TimeStagePass {
  const gl::Program& program;
  gl::Uniform<int> transducers, samples, taps;  // Q, K, J
  gl::Uniform<float> t_min, dt, cD;
  explicit TimeStagePass(const gl::Program& p)
      : program(p), transducers(p, "u_transducers"), samples(p, "u_samples"), taps(p, "u_taps"), t_min(p, "u_t_min"),
        dt(p, "u_dt"), cD(p, "u_cD") {}
};

// glDispatchCompute of `groups` one-dimensional work groups, split over y beyond 65535 (the
// shaders rebuild the index from gl_NumWorkGroups.x).
void dispatch_groups(long long groups) {
  if (groups <= 0) return;
  const long long x = std::min<long long>(groups, 65535), y = (groups + x - 1) / x;
  TOMO_GL_CHECK(glDispatchCompute(static_cast<GLuint>(x), static_cast<GLuint>(y), 1));
}

class GlComputeModel final : public Model {
 public:
  std::string describe() const override {
    return str_cat("gl-compute (", to_string(opt_.interpolation), " trilinear, float, gathered transpose): ",
                   gl::shared_context().info().summary());
  }

  void configure(const OatGeometry& g, const ModelOptions& o) override {
    if (o.kind != ModelKind::interpolation)
      throw UnavailableError("oat gl-compute: model '" + to_string(o.kind) + "' is not implemented");
    if (o.reproducible)  // its shared-memory sums are compare-and-swap float adds, in varying order
      throw InputError(kReproducibleOnGlCompute);
    g.validate("oat gl-compute model");
    gl::Context& ctx = gl::shared_context();
    ctx.make_current();
    const gl::Capabilities& caps = ctx.info().caps;
    g_ = g;
    opt_ = o;
    Q_ = g.transducer_count();
    K_ = g.time.samples;
    h_ = patch_mm(g, o);
    check_loop_budget(caps.max_loop_iterations, ctx.info().gl_renderer);
    std::vector<float> frames;
    for (const ShellFrame<float>& f : shell_frames<float>(g))
      frames.insert(frames.end(), {f.sx, f.sy, f.sz, f.ex, f.ey, f.ez, f.ux, f.uy, f.uz, f.vx, f.vy, f.vz, f.D, f.rho});
    frames_ = gl::Buffer::from(frames);
    caps_ = gl::Buffer::from(cap_table());
    std::vector<float> taps(g.eir.active() ? g.eir.taps.size() : 1, 0.0f);
    if (g.eir.active()) std::copy(g.eir.taps.begin(), g.eir.taps.end(), taps.begin());
    taps_count_ = g.eir.active() ? static_cast<int>(g.eir.taps.size()) : 0;
    taps_ = gl::Buffer::from(taps);
    const std::size_t shells = static_cast<std::size_t>(Q_) * (K_ + 2), data = static_cast<std::size_t>(Q_) * K_;
    alpha_ = gl::Buffer(g.grid.count() * sizeof(float));
    g_buf_ = gl::Buffer(shells * sizeof(float));
    p_ = gl::Buffer(data * sizeof(float));
    u_ = gl::Buffer(data * sizeof(float));
    if (o.interpolation == Interpolation::hardware) {
      volume_ = gl::Texture::create_3d(GL_R32F, g.grid.dims[0], g.grid.dims[1], g.grid.dims[2]);
      volume_.set_wrap(GL_CLAMP_TO_BORDER);  // border 0: voxels outside the grid count as zero
      volume_.set_filter(GL_LINEAR, GL_LINEAR);
    }
    gl::Defines fwd;
    if (o.interpolation == Interpolation::exact) fwd.emplace_back("EXACT", "1");
    srt_ = &gl::shaders().get_compute<ShellPass>("oat/srt.comp.glsl", fwd);
    gather_ = &gl::shaders().get_compute<GatherPass>("oat/srt_gather.comp.glsl");
    plan_gather(caps.max_loop_iterations);
    for (TimeStage s : kTimeStages)
      stages_[static_cast<int>(s)] =
          &gl::shaders().get_compute<TimeStagePass>("oat/time_stages.comp.glsl", {{"STAGE", std::to_string(static_cast<int>(s))}});
  }

  void forward(std::span<const double> alpha, std::span<double> u) override {
    require(alpha.size() == g_.grid.count() && u.size() == static_cast<std::size_t>(Q_) * K_, alpha.size(), u.size());
    gl::shared_context().make_current();
    const std::vector<float> a(alpha.begin(), alpha.end());
    if (opt_.interpolation == Interpolation::hardware)
      volume_.upload_float(a.data(), 1);
    else
      alpha_.upload(a.data(), a.size() * sizeof(float));
    TOMO_GL_CHECK(glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT));
    set_shell_uniforms(*srt_);
    TOMO_GL_CHECK(glBindTextureUnit(binding::kVolume, volume_ ? volume_.id() : 0));
    run_shell_pass();
    TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
    run_stage(TimeStage::derivative, g_buf_, p_);
    if (taps_count_ > 0)
      run_stage(TimeStage::eir, p_, u_);
    else
      TOMO_GL_CHECK(glCopyNamedBufferSubData(p_.id(), u_.id(), 0, 0, static_cast<GLsizeiptr>(p_.bytes())));
    TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
    const std::vector<float> f = u_.read<float>();
    std::copy(f.begin(), f.end(), u.begin());
  }

  void adjoint(std::span<const double> u, std::span<double> alpha) override {
    require(alpha.size() == g_.grid.count() && u.size() == static_cast<std::size_t>(Q_) * K_, alpha.size(), u.size());
    gl::shared_context().make_current();
    const std::vector<float> d(u.begin(), u.end());
    u_.upload(d.data(), d.size() * sizeof(float));
    TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
    if (taps_count_ > 0)
      run_stage(TimeStage::eir_adjoint, u_, p_);
    else
      TOMO_GL_CHECK(glCopyNamedBufferSubData(u_.id(), p_.id(), 0, 0, static_cast<GLsizeiptr>(u_.bytes())));
    TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
    run_stage(TimeStage::derivative_adjoint, p_, g_buf_);
    run_gather();
    TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
    const std::vector<float> f = alpha_.read<float>();
    std::copy(f.begin(), f.end(), alpha.begin());
  }

  void synchronize() override {
    gl::shared_context().make_current();
    glFinish();
  }

 private:
  void require(bool ok, std::size_t voxels, std::size_t samples) const {
    if (!srt_) throw Error("oat gl-compute model: configure() was not called");
    if (!ok)
      throw Error(str_cat("oat gl-compute model: ", voxels, " voxels and ", samples, " data samples, expected ",
                          g_.grid.count(), " and ", static_cast<std::size_t>(Q_) * K_));
  }

  void set_shell_uniforms(const ShellPass& s) const {
    s.program.use();
    const Grid3& gr = g_.grid;
    s.grid0.set({static_cast<float>(gr.origin_mm[0]), static_cast<float>(gr.origin_mm[1]),
                 static_cast<float>(gr.origin_mm[2])});
    s.ds.set(static_cast<float>(g_.voxel_mm()));
    s.dims.set({gr.dims[0], gr.dims[1], gr.dims[2]});
    s.transducers.set(Q_);
    s.shells.set(K_ + 2);
    s.c0.set(static_cast<float>(g_.c0_mm_per_us));
    s.t_min.set(static_cast<float>(g_.time.t_min_us));
    s.dt.set(static_cast<float>(g_.time.dt_us()));
    s.h.set(static_cast<float>(h_));
  }

  // The srt pass: its buffers (shell.glsl's bindings) and one work group per
  // shell sample.
  void run_shell_pass() const {
    frames_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kShellFrames);
    alpha_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kShellAlpha);
    g_buf_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kShellSums);
    caps_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kShellCaps);
    dispatch_groups(static_cast<long long>(Q_) * (K_ + 2));
  }

  // The gather's tiles and its transducer chunks: on a GL that cuts loops (llvmpipe), few
  // enough transducers per pass that an invocation's loops stay within half the limit, bounded
  // from the tile's ball (shells across it, rings and patches of a shell inside it at no less
  // than half a patch apart, each patch's binary search, eight adds and their CAS loops).
  void plan_gather(long long limit) {
    const Grid3& gr = g_.grid;
    for (int a = 0; a < 3; ++a) tiles_[a] = (gr.dims[a] + kGatherTile - 1) / kGatherTile;
    const double ds = g_.voxel_mm(), r = 0.5 * std::sqrt(3.0) * (kGatherTile + 1) * ds;
    double far = 0;
    for (const ShellFrame<double>& f : shell_frames<double>(g_)) far = std::max(far, f.D + cap_radius_mm(g_));
    margin_ = 4.0 * (1e-3 * ds + 4e-6 * far);  // cuda/oat/srt_gather.hpp's margin, 4× for GL's acos/asin
    q_per_pass_ = std::max(Q_, 1);
    if (limit <= 0) return;
    const double shells = 2.0 * r / (g_.c0_mm_per_us * g_.time.dt_us()) + 3.0;
    const double rings = 4.0 * r / h_ + 2.0, patches = rings * rings;
    const double per_shell = std::ceil(rings / 64.0) * (66.0 + std::ceil(patches / 64.0) * 40.0) + 4.0;
    const double per_q = shells * per_shell + 4.0;
    q_per_pass_ = static_cast<int>(std::clamp(0.5 * static_cast<double>(limit) / per_q, 1.0, static_cast<double>(Q_)));
  }

  // H_srtᵀ g into α by srt_gather.comp.glsl, in passes over chunks of transducers.
  void run_gather() const {
    const GatherPass& s = *gather_;
    set_shell_uniforms(s);
    s.tiles.set({tiles_[0], tiles_[1], tiles_[2]});
    const Vec3d c = g_.grid_centre_mm();
    s.centre.set({static_cast<float>(c[0]), static_cast<float>(c[1]), static_cast<float>(c[2])});
    s.rho.set(static_cast<float>(cap_radius_mm(g_)));
    s.margin.set(static_cast<float>(margin_));
    frames_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kShellFrames);
    alpha_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kShellAlpha);
    g_buf_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kShellSums);
    caps_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kShellCaps);
    for (int q0 = 0; q0 < std::max(Q_, 1); q0 += q_per_pass_) {
      s.q_begin.set(q0);
      s.q_end.set(std::min(Q_, q0 + q_per_pass_));
      s.accumulate.set(q0 > 0 ? 1 : 0);
      dispatch_groups(static_cast<long long>(tiles_[0]) * tiles_[1] * tiles_[2]);
      TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
    }
  }

  // (θ_max, n_theta) of every shell sample (q, m), kernel_math shell_cap in double (see shell.glsl).
  std::vector<float> cap_table() const {
    const std::vector<ShellFrame<double>> frames = shell_frames<double>(g_);
    std::vector<float> caps(2 * static_cast<std::size_t>(Q_) * (K_ + 2));
    for (int q = 0; q < Q_; ++q)
      for (int m = 0; m < K_ + 2; ++m) {
        const ShellCap<double> c = shell_cap(frames[q], radius(m), h_);
        const std::size_t id = static_cast<std::size_t>(q) * (K_ + 2) + m;
        caps[2 * id] = static_cast<float>(c.theta_max);
        caps[2 * id + 1] = static_cast<float>(c.n_theta);
      }
    return caps;
  }
  double radius(int m) const { return g_.c0_mm_per_us * (g_.time.t_min_us + (m - 1.0) * g_.time.dt_us()); }

  // One stage of time_stages.comp.glsl from `in` to `out` (see the shader).
  void run_stage(TimeStage stage, const gl::Buffer& in, const gl::Buffer& out) const {
    const TimeStagePass& s = *stages_[static_cast<int>(stage)];
    s.program.use();
    s.transducers.set(Q_);
    s.samples.set(K_);
    s.taps.set(taps_count_);
    s.t_min.set(static_cast<float>(g_.time.t_min_us));
    s.dt.set(static_cast<float>(g_.time.dt_us()));
    s.cD.set(static_cast<float>(d_coefficient<double>(g_.gruneisen, g_.c0_mm_per_us, g_.time.dt_us())));
    in.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kStageIn);
    out.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kStageOut);
    taps_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kStageTaps);
    const long long n = static_cast<long long>(Q_) * (stage == TimeStage::derivative_adjoint ? K_ + 2 : K_);
    dispatch_groups((n + 255) / 256);
    TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
  }

  // Software GL cuts an invocation's loops after `limit` iterations: bound the ring and
  // patch loops of the largest shell sample (cap and rings from kernel_math in double) and refuse
  // beyond it rather than return wrong sums.
  void check_loop_budget(long long limit, const std::string& renderer) const {
    if (limit <= 0) return;
    const std::vector<ShellFrame<double>> frames = shell_frames<double>(g_);
    long long worst = 0;
    for (int q = 0; q < Q_; ++q)
      for (int m = 0; m < K_ + 2; ++m) {
        const ShellCap<double> c = shell_cap(frames[q], radius(m), h_);
        long long it = c.n_theta;
        for (int i = 0; i < c.n_theta; ++i) it += (shell_ring(c, i).n_phi + 31) / 32 + 1;
        worst = std::max(worst, it);
      }
    if (2 * worst > limit)  // 2×: the float cap on the GPU may cut a few more patches
      throw UnavailableError(str_cat("oat gl-compute model: a shell sample needs about ", worst,
                                     " shader loop iterations per invocation, beyond what this software OpenGL (",
                                     renderer, ") runs before cutting loops short (", limit,
                                     "); use larger voxels or another backend"));
  }

  OatGeometry g_;
  ModelOptions opt_;
  int Q_ = 0, K_ = 0, taps_count_ = 0;
  double h_ = 1;
  const ShellPass* srt_ = nullptr;
  const GatherPass* gather_ = nullptr;
  int tiles_[3] = {0, 0, 0}, q_per_pass_ = 1;
  double margin_ = 0;
  const TimeStagePass* stages_[std::size(kTimeStages)] = {};
  gl::Buffer frames_, caps_, taps_, alpha_, g_buf_, p_, u_;
  gl::Texture volume_;
};

const BackendRegistrar<Model> kRegisterGlCompute({"gl-compute", kPriorityGlCompute, [] { return gl::availability({}); },
                                                  [] { return std::make_unique<GlComputeModel>(); }});

}  // namespace
}  // namespace tomo::oat
