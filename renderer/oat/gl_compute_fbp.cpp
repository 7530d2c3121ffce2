// The `gl-compute` backend of the oat FBP (float), the data (M_k, D_k) in an RG32F texture (the
// layout of cuda/oat/fbp_kernels.hpp), k̃ refined in double next to sample boundaries, read one of
// two ways (FbpOptions::read): texture = shaders/oat/fbp.comp.glsl, one invocation per voxel and
// one texel fetch per update; shared (automatic's choice where it fits) =
// shaders/oat/fbp_shared.comp.glsl, per-workgroup time windows in shared memory.
// FbpOptions::interpolation has no effect: a filtered fetch would lerp the held difference too.
#include <algorithm>
#include <cmath>
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

// fbp.comp.glsl and fbp_shared.comp.glsl: fbp_common.glsl's uniforms, looked up once at link.
struct FbpPass {
  const gl::Program& program;
  gl::Uniform<gl::Vec3i> dims;
  gl::Uniform<float> voxel, inv_c0dt, tau0, lin_scale, diff_scale, eps;
  gl::Uniform<double> voxel_d, inv_c0dt_d, tau0_d;
  gl::Uniform<int> transducers, width;  // Q, K − 1
  explicit FbpPass(const gl::Program& p)
      : program(p), dims(p, "u_dims"), voxel(p, "u_voxel"), inv_c0dt(p, "u_inv_c0dt"), tau0(p, "u_tau0"),
        lin_scale(p, "u_lin_scale"), diff_scale(p, "u_diff_scale"), eps(p, "u_eps"), voxel_d(p, "u_voxel_d"),
        inv_c0dt_d(p, "u_inv_c0dt_d"), tau0_d(p, "u_tau0_d"), transducers(p, "u_transducers"), width(p, "u_width") {}
};

class GlComputeFbp final : public Fbp {
 public:
  std::string describe() const override {
    const char* how = shared_ ? "time windows in shared memory" : "texel fetches";
    return str_cat("gl-compute (exact fused formula, float, ", how, ", k̃ refined in double next to samples): ",
                   gl::shared_context().info().summary());
  }

  void configure(const OatGeometry& g, const FbpOptions& o) override {
    g.validate("oat gl-compute fbp");
    gl::Context& ctx = gl::shared_context();
    ctx.make_current();
    const gl::Capabilities& caps = ctx.info().caps;
    const int Q = g.transducer_count(), K = g.time.samples;
    if (K - 1 > caps.max_texture_size || Q > caps.max_texture_size)
      throw UnavailableError(str_cat("oat gl-compute fbp: a data texture of ", K - 1, " x ", Q,
                                     " exceeds GL_MAX_TEXTURE_SIZE (", caps.max_texture_size, ")"));
    if (o.read == FbpRead::ldg)
      throw UnavailableError(str_cat("oat gl-compute fbp: oat.fbp.read = \"", enum_name(kFbpReadNames, o.read),
                                     "\" is cuda's"));
    choose_program(g, o, ctx);
    g_ = g;
    opt_ = o;
    weights_ = fbp_weights<double>(g);
    std::vector<float> tr(4 * static_cast<std::size_t>(Q));
    std::vector<double> pos(3 * static_cast<std::size_t>(Q));
    double d_max = 0;
    for (int q = 0; q < Q; ++q) {
      double far = 0;
      for (int a = 0; a < 3; ++a) {
        pos[3 * q + a] = g.transducers[q][a] - g.grid.origin_mm[a];
        tr[4 * q + a] = static_cast<float>(pos[3 * q + a]);
        const double e = (g.grid.dims[a] - 1) * g.voxel_mm();
        far += std::max(pos[3 * q + a] * pos[3 * q + a], (pos[3 * q + a] - e) * (pos[3 * q + a] - e));
      }
      d_max = std::max(d_max, std::sqrt(far));
    }
    transducers_ = gl::Buffer::from(tr);
    positions_ = gl::Buffer::from(pos);
    // Twice a bound of the fp32 k̃ error, as cuda/oat/fbp_device.cpp (GLSL's inversesqrt: ~2⁻²²).
    const double inv_c0dt = 1.0 / (g.c0_mm_per_us * g.time.dt_us());
    eps_ = static_cast<float>(std::clamp(2.0 * (d_max * 4.5e-7 * inv_c0dt + d_max * inv_c0dt * 1.2e-7), 1e-5, 0.05));
    image_ = gl::Buffer(g.grid.count() * sizeof(float));
    table_ = gl::Texture::create_2d(GL_RG32F, K - 1, Q);
    table_.set_filter(GL_NEAREST, GL_NEAREST);
  }

  void reconstruct(std::span<const double> p, std::span<double> image) override {
    if (!pass_) throw Error("oat gl-compute fbp: configure() was not called");
    const std::size_t Q = g_.transducers.size(), K = static_cast<std::size_t>(g_.time.samples);
    if (p.size() != Q * K || image.size() != g_.grid.count())
      throw Error(str_cat("oat gl-compute fbp: ", p.size(), " samples and ", image.size(), " voxels, expected ",
                          Q * K, " and ", g_.grid.count()));
    gl::shared_context().make_current();
    std::vector<float> table(2 * Q * (K - 1));
    for (std::size_t q = 0; q < Q; ++q)
      for (std::size_t k = 0; k + 1 < K; ++k) {
        const double* row = p.data() + q * K;
        table[2 * (q * (K - 1) + k)] = static_cast<float>(weights_[q] * 0.5 * (row[k] + row[k + 1]));
        table[2 * (q * (K - 1) + k) + 1] = static_cast<float>(weights_[q] * (row[k + 1] - row[k]));
      }
    table_.upload_float(table.data(), 2);
    const FbpPass& pass = *pass_;
    const gl::Program& prog = pass.program;
    prog.use();
    const Grid3& gr = g_.grid;
    const double dt = g_.time.dt_us(), c0 = g_.c0_mm_per_us;
    pass.dims.set({gr.dims[0], gr.dims[1], gr.dims[2]});
    pass.voxel.set(static_cast<float>(g_.voxel_mm()));
    pass.inv_c0dt.set(static_cast<float>(1.0 / (c0 * dt)));
    pass.tau0.set(static_cast<float>(g_.time.t_min_us / dt));  // (M, D) read as M + (f − ½)·D
    pass.lin_scale.set(static_cast<float>(c0 * dt));
    pass.diff_scale.set(0.5f);
    pass.transducers.set(static_cast<int>(Q));
    pass.width.set(static_cast<int>(K - 1));
    pass.eps.set(eps_);
    pass.voxel_d.set(g_.voxel_mm());
    pass.inv_c0dt_d.set(1.0 / (c0 * dt));
    pass.tau0_d.set(g_.time.t_min_us / dt);
    TOMO_GL_CHECK(glBindTextureUnit(binding::kFbpTable, table_.id()));
    transducers_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kFbpTransducers);
    image_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kFbpImage);
    positions_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kFbpPositions);
    TOMO_GL_CHECK(glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT));
    if (shared_)  // one workgroup per box of 8 × 8 × 16 voxels
      TOMO_GL_CHECK(glDispatchCompute((gr.dims[0] + 7) / 8, (gr.dims[1] + 7) / 8, (gr.dims[2] + 15) / 16));
    else
      prog.dispatch(gr.dims[0], gr.dims[1], gr.dims[2]);
    TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
    const std::vector<float> f = image_.read<float>();
    std::copy(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(image.size()), image.begin());
  }

  void synchronize() override {
    gl::shared_context().make_current();
    glFinish();
  }

 private:
  // The shared variant where asked for or (automatic) on hardware GL where its window fits in 2048
  // samples; the texture variant otherwise. Software GL cuts a shader's loops after
  // caps.max_loop_iterations (counted over all loops of an invocation): both must fit there.
  void choose_program(const OatGeometry& g, const FbpOptions& o, gl::Context& ctx) {
    const gl::Capabilities& caps = ctx.info().caps;
    const long long Q = g.transducer_count(), limit = caps.max_loop_iterations;
    const double diag = g.voxel_mm() * std::sqrt(7.0 * 7.0 + 7.0 * 7.0 + 15.0 * 15.0);  // the box's centres
    const double need = std::ceil(diag / (g.c0_mm_per_us * g.time.dt_us())) + 7;   // as the cuda kernel
    int slot = 8;
    while (slot < need && slot <= 2048) slot *= 2;
    constexpr int kVpt = 4, kThreads = 64 * (16 / kVpt);
    const int tile = std::clamp(16384 / (8 * slot), 1, 64);
    const long long shared_loops = Q * (kVpt + 1) + (Q / tile + 1) * (1 + tile * slot / kThreads) + 2 * kVpt;
    std::string why;
    if (slot > 2048) why = "a workgroup's time window would exceed 2048 samples";
    else if (limit > 0 && shared_loops > limit)
      why = str_cat(shared_loops, " loop iterations per invocation, beyond the ", limit, " this software OpenGL (",
                    ctx.info().gl_renderer, ") runs before cutting loops short");
    // automatic: shared on hardware; on software GL (the one with a loop limit: llvmpipe) the texel
    // fetches are cheaper than its emulated barriers and shared arrays (docs/perf/oat.md), so
    // texture there.
    if (why.empty() && o.read == FbpRead::automatic && limit > 0) why = "software GL reads texels faster";
    shared_ = why.empty() && o.read != FbpRead::texture;
    if (o.read == FbpRead::shared && !shared_)
      throw UnavailableError(str_cat("oat gl-compute fbp: oat.fbp.read = \"shared\": ", why));
    if (shared_) {
      pass_ = &gl::shaders().get_compute<FbpPass>("oat/fbp_shared.comp.glsl", {{"SLOT", std::to_string(slot)},
                                                                                {"TILE", std::to_string(tile)},
                                                                                {"VPT", std::to_string(kVpt)}});
      return;
    }
    if (limit > 0 && Q > limit)
      throw UnavailableError(str_cat("oat gl-compute fbp: ", Q, " transducers need as many shader loop iterations ",
                                     "per voxel, beyond the ", limit, " this software OpenGL (",
                                     ctx.info().gl_renderer, ") runs before cutting loops short"));
    pass_ = &gl::shaders().get_compute<FbpPass>("oat/fbp.comp.glsl");
  }

  OatGeometry g_;
  FbpOptions opt_;
  std::vector<double> weights_;
  const FbpPass* pass_ = nullptr;
  bool shared_ = false;
  float eps_ = 1e-3f;
  gl::Buffer transducers_, positions_, image_;
  gl::Texture table_;
};

const BackendRegistrar<Fbp> kRegisterGlCompute({"gl-compute", kPriorityGlCompute, [] { return gl::availability({}); },
                                                [] { return std::make_unique<GlComputeFbp>(); }});

}  // namespace
}  // namespace tomo::oat
