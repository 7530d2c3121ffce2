// The `gl-compute` backend of H_sph (float; shaders/oat/sph_forward, sph_adjoint): forward an
// invocation per (transducer, 8 frequencies) over the voxels, adjoint an invocation per voxel over
// the transducers, phases by recurrence as in cuda. c_l is applied on the host (L·Q complex
// multiplies in double). The sums are split into passes (voxel slices forward, transducer slices
// adjoint) small enough for software GL's loop limit; on NVIDIA one pass does all.
#include <algorithm>
#include <complex>
#include <memory>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/sph_model.hpp"
#include "compute/oat/sph_spectrum.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/uniform.hpp"
#include "renderer/oat/bindings.hpp"

namespace tomo::oat {
namespace {

using cd = std::complex<double>;
constexpr int kFreqPerInvocation = 8;  // F of sph_forward.comp.glsl

// sph.glsl's uniforms, which both passes declare; looked up once at link.
struct SphUniforms {
  gl::Uniform<gl::Vec3f> grid0;  // centre of voxel (0, 0, 0), mm
  gl::Uniform<gl::Vec3i> dims;
  gl::Uniform<float> ds, f0, df;                      // voxel edge (mm); f_0/c₀ and Δf/c₀ (turns per mm)
  gl::Uniform<int> transducers, points, frequencies;  // Q, P, L
  gl::Uniform<int> first;                             // 1: the pass overwrites its output, 0: adds to it
  explicit SphUniforms(const gl::Program& p)
      : grid0(p, "u_grid0"), dims(p, "u_dims"), ds(p, "u_ds"), f0(p, "u_f0"), df(p, "u_df"),
        transducers(p, "u_transducers"), points(p, "u_points"), frequencies(p, "u_frequencies"), first(p, "u_first") {}
};

// sph_forward.comp.glsl: one pass over the voxels [v0, v1).
struct SphForwardPass {
  const gl::Program& program;
  SphUniforms common;
  gl::Uniform<int> v0, v1;
  explicit SphForwardPass(const gl::Program& p) : program(p), common(p), v0(p, "u_v0"), v1(p, "u_v1") {}
};

// sph_adjoint.comp.glsl: one pass over the transducers [q0, q1), an invocation per voxel.
struct SphAdjointPass {
  const gl::Program& program;
  SphUniforms common;
  gl::Uniform<int> q0, q1, voxels;
  explicit SphAdjointPass(const gl::Program& p)
      : program(p), common(p), q0(p, "u_q0"), q1(p, "u_q1"), voxels(p, "u_voxels") {}
};

void dispatch_invocations(long long n) {  // 64 per group, groups over y beyond 65535
  const long long groups = (n + 63) / 64;
  if (groups <= 0) return;
  const long long x = std::min<long long>(groups, 65535), y = (groups + x - 1) / x;
  TOMO_GL_CHECK(glDispatchCompute(static_cast<GLuint>(x), static_cast<GLuint>(y), 1));
}

class GlComputeSphModel final : public SphModel {
 public:
  std::string describe() const override {
    return "gl-compute (H_sph, float): " + gl::shared_context().info().summary();
  }

  void configure(const OatGeometry& g, const SphOptions& o) override {
    g.validate("oat gl-compute H_sph");
    o.setup.validate(g, "oat gl-compute H_sph");
    if (g.grid.count() >= (std::size_t(1) << 31)) throw InputError("oat gl-compute H_sph: at most 2^31 voxels");
    gl::Context& ctx = gl::shared_context();
    ctx.make_current();
    g_ = g;
    Q_ = g.transducer_count();
    L_ = o.setup.frequencies;
    P_ = o.setup.face_points();
    N_ = static_cast<long long>(g.grid.count());
    f0_ = o.setup.f_mhz(g, 0) / g.c0_mm_per_us;
    df_ = o.setup.df_mhz(g) / g.c0_mm_per_us;
    weights_ = sph_weights(g, o.setup);
    std::vector<float> pts;
    for (const Vec3d& p : face_points(g, o.setup)) pts.insert(pts.end(), {float(p[0]), float(p[1]), float(p[2]), 0.f});
    points_ = gl::Buffer::from(pts);
    alpha_ = gl::Buffer(std::size_t(N_) * sizeof(float));
    sums_ = gl::Buffer(std::size_t(Q_) * L_ * 2 * sizeof(float));
    plan_passes(ctx.info().caps.max_loop_iterations, ctx.info().gl_renderer);
    forward_ = &gl::shaders().get_compute<SphForwardPass>("oat/sph_forward.comp.glsl", {});
    adjoint_ = &gl::shaders().get_compute<SphAdjointPass>("oat/sph_adjoint.comp.glsl", {});
  }

  void forward(std::span<const double> alpha, std::span<cd> u) override {
    check(alpha.size(), u.size());
    gl::shared_context().make_current();
    const std::vector<float> a(alpha.begin(), alpha.end());
    alpha_.upload(a.data(), a.size() * sizeof(float));
    TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
    const SphForwardPass& s = *forward_;
    s.program.use();
    set_common(s.common);
    points_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kSphPoints);
    alpha_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kSphForwardAlpha);
    sums_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kSphForwardSums);
    const long long lanes = (L_ + kFreqPerInvocation - 1) / kFreqPerInvocation;
    for (long long v0 = 0; v0 < N_ || v0 == 0; v0 += voxels_per_pass_) {
      s.common.first.set(v0 == 0 ? 1 : 0);
      s.v0.set(int(v0));
      s.v1.set(int(std::min(N_, v0 + voxels_per_pass_)));
      dispatch_invocations(Q_ * lanes);
      TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
      if (N_ == 0) break;
    }
    TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
    const std::vector<float> f = sums_.read<float>();
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = weights_[i % L_] * cd(f[2 * i], f[2 * i + 1]);
  }

  void adjoint(std::span<const cd> u, std::span<double> alpha) override {
    check(alpha.size(), u.size());
    gl::shared_context().make_current();
    std::vector<float> w(2 * u.size());
    for (std::size_t i = 0; i < u.size(); ++i) {
      const cd x = std::conj(weights_[i % L_]) * u[i];
      w[2 * i] = float(x.real()), w[2 * i + 1] = float(x.imag());
    }
    sums_.upload(w.data(), w.size() * sizeof(float));
    TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
    const SphAdjointPass& s = *adjoint_;
    s.program.use();
    set_common(s.common);
    s.voxels.set(int(N_));
    points_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kSphPoints);
    sums_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kSphAdjointWeighted);
    alpha_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kSphAdjointAlpha);
    for (int q0 = 0; q0 < Q_; q0 += transducers_per_pass_) {
      s.common.first.set(q0 == 0 ? 1 : 0);
      s.q0.set(q0);
      s.q1.set(std::min(Q_, q0 + transducers_per_pass_));
      dispatch_invocations(N_);
      TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
    }
    TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
    const std::vector<float> f = alpha_.read<float>();
    std::copy(f.begin(), f.end(), alpha.begin());
  }

  void synchronize() override {
    gl::shared_context().make_current();
    glFinish();
  }

 private:
  void check(std::size_t voxels, std::size_t samples) const {
    if (!forward_) throw Error("oat gl-compute H_sph: configure() was not called");
    if (voxels != std::size_t(N_) || samples != std::size_t(Q_) * L_)
      throw Error(str_cat("oat gl-compute H_sph: ", voxels, " voxels and ", samples, " samples, expected ", N_, " and ",
                          std::size_t(Q_) * L_));
  }

  void set_common(const SphUniforms& s) const {
    const Grid3& gr = g_.grid;
    s.grid0.set({float(gr.origin_mm[0]), float(gr.origin_mm[1]), float(gr.origin_mm[2])});
    s.ds.set(float(g_.voxel_mm()));
    s.dims.set({gr.dims[0], gr.dims[1], gr.dims[2]});
    s.transducers.set(Q_);
    s.points.set(P_);
    s.frequencies.set(L_);
    s.f0.set(float(f0_));
    s.df.set(float(df_));
  }

  // Software GL cuts an invocation's loops after `limit` iterations: keep every pass at half of
  // it (forward: voxels × points × (F + 2); adjoint: transducers × points × (L + L/32 + 2)), and
  // refuse when a single transducer's adjoint alone is beyond it.
  void plan_passes(long long limit, const std::string& renderer) {
    voxels_per_pass_ = std::max<long long>(N_, 1);
    transducers_per_pass_ = std::max(Q_, 1);
    if (limit <= 0) return;
    const long long budget = limit / 2;
    voxels_per_pass_ = std::max<long long>(1, budget / (P_ * (kFreqPerInvocation + 2)));
    const long long per_transducer = P_ * (L_ + L_ / 32 + 2);
    if (per_transducer > budget)
      throw UnavailableError(str_cat("oat gl-compute H_sph: one transducer needs ", per_transducer,
                                     " shader loop iterations per invocation, beyond what this software OpenGL (",
                                     renderer, ") runs before cutting loops short (", limit,
                                     "); use fewer frequencies or face points, or another backend"));
    transducers_per_pass_ = int(std::max<long long>(1, budget / per_transducer));
  }

  OatGeometry g_;
  int Q_ = 0, L_ = 0, P_ = 1;
  long long N_ = 0, voxels_per_pass_ = 1;
  int transducers_per_pass_ = 1;
  double f0_ = 0, df_ = 0;
  std::vector<cd> weights_;
  const SphForwardPass* forward_ = nullptr;
  const SphAdjointPass* adjoint_ = nullptr;
  gl::Buffer points_, alpha_, sums_;
};

const BackendRegistrar<SphModel> kRegisterGlComputeSph({"gl-compute", kPriorityGlCompute,
                                                        [] { return gl::availability({}); },
                                                        [] { return std::make_unique<GlComputeSphModel>(); }});

}  // namespace
}  // namespace tomo::oat
