// The `gl-compute` backend of the relative difference prior: shaders/pet/rdp.comp.glsl, one
// float32 stencil pass per term over SSBOs (x, κ, result; gradient and Hessian together in one
// pass with a second result), work groups of 32×8 voxels marching
// 16 planes along z; the value's per-voxel shares summed on the host in double.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/pet/prior.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/uniform.hpp"
#include "renderer/pet/bindings.hpp"

namespace tomo::pet {

namespace {

struct RdpPass {
  const gl::Program& program;
  gl::Uniform<gl::Vec3i> dims;
  gl::Uniform<gl::Vec3f> voxel;
  gl::Uniform<gl::Vec2f> params;
  explicit RdpPass(const gl::Program& p)
      : program(p), dims(p, "u_dims"), voxel(p, "u_voxel"), params(p, "u_params") {}
};

class GlComputePrior final : public PriorOperator {
 public:
  std::string describe() const override { return "gl-compute (float32): " + gl::shared_context().info().summary(); }
  void synchronize() override {
    gl::shared_context().make_current();
    glFinish();
  }

  void configure(const PriorGrid& g, const RdpParams& p, std::span<const double> kappa) override {
    const std::size_t n = g.count();
    if (!kappa.empty() && kappa.size() != n)
      throw Error(str_cat("pet prior: ", kappa.size(), " kappa values for ", n, " voxels"));
    gl::shared_context().make_current();
    grid_ = g;
    params_ = p;
    for (int t = 0; t < 4; ++t)
      passes_[t] = &gl::shaders().get_compute<RdpPass>("pet/rdp.comp.glsl", {{"TERM", std::to_string(t)}});
    std::vector<float> k(n, 1.0f);
    if (!kappa.empty()) std::copy(kappa.begin(), kappa.end(), k.begin());
    kappa_ = gl::Buffer(n * sizeof(float), k.data());
    x_ = gl::Buffer(n * sizeof(float));
    out_ = gl::Buffer(n * sizeof(float));
    out2_ = gl::Buffer(n * sizeof(float));
  }

  double value(std::span<const double> x) override {
    const auto per = pass(x, 0);
    double s = 0;
    for (float v : per) s += v;
    return 0.5 * s;
  }
  std::vector<double> gradient(std::span<const double> x) override {
    const auto r = pass(x, 1);
    return {r.begin(), r.end()};
  }
  std::vector<double> hessian_diagonal(std::span<const double> x) override {
    const auto r = pass(x, 2);
    return {r.begin(), r.end()};
  }
  PriorDerivatives gradient_and_hessian(std::span<const double> x) override {
    const auto g = pass(x, 3);
    const auto h = out2_.read<float>();
    return {{g.begin(), g.end()}, {h.begin(), h.end()}};
  }

 private:
  // One pass of shader term `term` (0 value, 1 gradient, 2 Hessian, 3 both: the Hessian is left
  // in out2_); returns out_.
  std::vector<float> pass(std::span<const double> x, int term) {
    const std::size_t n = grid_.count();
    if (x.size() != n) throw Error(str_cat("pet prior: image of ", x.size(), " voxels, grid has ", n));
    if (!passes_[term]) throw Error("pet prior: configure() first");
    gl::shared_context().make_current();
    const std::vector<float> xf(x.begin(), x.end());
    x_.upload(xf.data(), n * sizeof(float));
    const RdpPass& p = *passes_[term];
    p.program.use();
    p.dims.set({grid_.dims[0], grid_.dims[1], grid_.dims[2]});
    p.voxel.set({float(grid_.voxel_mm[0]), float(grid_.voxel_mm[1]), float(grid_.voxel_mm[2])});
    p.params.set({float(params_.gamma), float(params_.epsilon)});
    x_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kImage);
    kappa_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kKappa);
    out_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kOut);
    out2_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kOut2);  // written by term 3 only
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    p.program.dispatch(grid_.dims[0], grid_.dims[1], (grid_.dims[2] + 15) / 16);  // RDP_CHUNK planes per group
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    return out_.read<float>();
  }

  PriorGrid grid_;
  RdpParams params_;
  const RdpPass* passes_[4] = {nullptr, nullptr, nullptr, nullptr};
  gl::Buffer kappa_, x_, out_, out2_;
};

const BackendRegistrar<PriorOperator> kRegisterGlCompute({"gl-compute", kPriorityGlCompute, [] { return gl::availability({}); },
                                                          [] { return std::make_unique<GlComputePrior>(); }});

}  // namespace

}  // namespace tomo::pet
