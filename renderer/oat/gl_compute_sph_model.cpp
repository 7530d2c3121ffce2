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

namespace tomo::oat {
namespace {

using cd = std::complex<double>;
constexpr int kFreqPerInvocation = 8;  // F of sph_forward.comp.glsl

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
    forward_ = &gl::shaders().compute("oat/sph_forward.comp.glsl", {});
    adjoint_ = &gl::shaders().compute("oat/sph_adjoint.comp.glsl", {});
  }

  void forward(std::span<const double> alpha, std::span<cd> u) override {
    check(alpha.size(), u.size());
    gl::shared_context().make_current();
    const std::vector<float> a(alpha.begin(), alpha.end());
    alpha_.upload(a.data(), a.size() * sizeof(float));
    TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
    const gl::Program& s = *forward_;
    set_common(s);
    points_.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
    alpha_.bind_base(GL_SHADER_STORAGE_BUFFER, 1);
    sums_.bind_base(GL_SHADER_STORAGE_BUFFER, 2);
    const long long lanes = (L_ + kFreqPerInvocation - 1) / kFreqPerInvocation;
    for (long long v0 = 0; v0 < N_ || v0 == 0; v0 += voxels_per_pass_) {
      s.set("u_first", v0 == 0 ? 1 : 0);
      s.set("u_v0", int(v0));
      s.set("u_v1", int(std::min(N_, v0 + voxels_per_pass_)));
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
    const gl::Program& s = *adjoint_;
    set_common(s);
    s.set("u_voxels", int(N_));
    points_.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
    sums_.bind_base(GL_SHADER_STORAGE_BUFFER, 1);
    alpha_.bind_base(GL_SHADER_STORAGE_BUFFER, 2);
    for (int q0 = 0; q0 < Q_; q0 += transducers_per_pass_) {
      s.set("u_first", q0 == 0 ? 1 : 0);
      s.set("u_q0", q0);
      s.set("u_q1", std::min(Q_, q0 + transducers_per_pass_));
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

  void set_common(const gl::Program& s) const {
    s.use();
    const Grid3& gr = g_.grid;
    s.set("u_grid0", float(gr.origin_mm[0]), float(gr.origin_mm[1]), float(gr.origin_mm[2]));
    s.set("u_ds", float(g_.voxel_mm()));
    s.set("u_dims", gr.dims[0], gr.dims[1], gr.dims[2]);
    s.set("u_transducers", Q_);
    s.set("u_points", P_);
    s.set("u_frequencies", L_);
    s.set("u_f0", float(f0_));
    s.set("u_df", float(df_));
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
  const gl::Program* forward_ = nullptr;
  const gl::Program* adjoint_ = nullptr;
  gl::Buffer points_, alpha_, sums_;
};

const BackendRegistrar<SphModel> kRegisterGlComputeSph({"gl-compute", kPriorityGlCompute,
                                                        [] { return gl::availability({}); },
                                                        [] { return std::make_unique<GlComputeSphModel>(); }});

}  // namespace
}  // namespace tomo::oat
