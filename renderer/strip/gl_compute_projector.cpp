// The `gl-compute` backend of the strip operator: the thread- and warp-granularity iteration as
// GLSL compute shaders (shaders/strip/), float32, events resident in an SSBO for all iterations.
// Float atomics where the driver has GL_NV_shader_atomic_float, an exact CAS loop otherwise;
// subgroupAdd for the warp denominator where subgroups are 32 wide, shared memory otherwise.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/uniform.hpp"
#include "renderer/strip/bindings.hpp"
#include "compute/strip/kernel_math.hpp"
#include "compute/strip/projector.hpp"

namespace tomo::strip {

namespace {

// kernel.glsl's uniforms, read by every strip pass (ML-EM iteration and projections).
struct KernelPass {
  const gl::Program& program;
  gl::Uniform<gl::Vec4f> grid, kp;  // y0, z0, py, pz; R, 1/σz², 1/σΔl², norm
  gl::Uniform<gl::Vec2i> dims;      // ny, nz
  gl::Uniform<float> cut;
  gl::Uniform<unsigned> count;
  explicit KernelPass(const gl::Program& p)
      : program(p), grid(p, "u_grid"), kp(p, "u_kp"), dims(p, "u_dims"), cut(p, "u_cut"), count(p, "u_count") {}
};

// project.comp.glsl's two variants.
enum class Projection { Forward, Back };

class GlComputeProjector final : public ListModeProjector {
 public:
  std::string describe() const override {
    return str_cat("gl-compute (", to_string(opt_.granularity), " granularity, float32", float_atomics_ ? ", float atomics" : ", CAS atomics",
                   subgroup_ ? ", subgroupAdd" : "", "): ", gl::shared_context().info().summary());
  }

  void synchronize() override {
    gl::shared_context().make_current();
    glFinish();
  }

  void configure(const StripGeometry& g, const Resolution& res, const ProjectorOptions& o) override {
    gl::Context& ctx = gl::shared_context();
    ctx.make_current();
    geom_ = g;
    opt_ = o;
    kp_ = make_kernel_params<float>(g.R, res.sigma_z, res.sigma_dl, o.nsigma);
    const gl::Capabilities& caps = ctx.info().caps;
    float_atomics_ = !o.portable && caps.float_atomics;
    // The warp kernel's shared-memory layout assumes 32-wide subgroups.
    subgroup_ = !o.portable && o.granularity == Granularity::warp && caps.subgroup_arithmetic && caps.subgroup_size == 32;
    gl::Defines defs;
    if (float_atomics_) defs.emplace_back("FLOAT_ATOMICS", "1");
    if (subgroup_) defs.emplace_back("SUBGROUP", "1");
    iterate_ = &gl::shaders().get_compute<KernelPass>(
        o.granularity == Granularity::warp ? "strip/mlem_warp.comp.glsl" : "strip/mlem_thread.comp.glsl", defs);
    gl::Defines forward = defs;
    forward.emplace_back("FORWARD", "1");
    forward_ = &gl::shaders().get_compute<KernelPass>("strip/project.comp.glsl", forward);
    back_ = &gl::shaders().get_compute<KernelPass>("strip/project.comp.glsl", defs);
    const std::size_t bytes = sizeof(float) * g.pixel_count();
    rho_ = gl::Buffer(bytes);
    rho_new_ = gl::Buffer(bytes);
    events_ = gl::Buffer();
    count_ = 0;
  }

  void set_events(std::span<const Event> events) override {
    gl::shared_context().make_current();
    check_loop_budget(events);
    count_ = events.size();
    // An empty SSBO cannot be created: keep one dummy event's room.
    events_ = gl::Buffer(std::max<std::size_t>(1, events.size()) * sizeof(Event), events.empty() ? nullptr : events.data());
  }

  void set_image(std::span<const double> rho) override {
    if (rho.size() != geom_.pixel_count())
      throw Error(str_cat("strip gl-compute: image of ", rho.size(), " pixels, grid has ", geom_.pixel_count()));
    gl::shared_context().make_current();
    std::vector<float> f(rho.begin(), rho.end());
    rho_.upload(f.data(), f.size() * sizeof(float));
  }

  std::vector<double> image() const override {
    gl::shared_context().make_current();
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    auto f = rho_.read<float>();
    return {f.begin(), f.end()};
  }

  std::vector<double> forward(std::span<const double> x) override {
    if (x.size() != geom_.pixel_count())
      throw Error(str_cat("strip gl-compute: image of ", x.size(), " pixels, grid has ", geom_.pixel_count()));
    gl::shared_context().make_current();
    const std::vector<float> xf(x.begin(), x.end());
    gl::Buffer xb(xf.size() * sizeof(float), xf.data()), yb(std::max<std::size_t>(1, count_) * sizeof(float));
    project(Projection::Forward, xb, yb, rho_new_);
    auto y = yb.read<float>();
    y.resize(count_);
    return {y.begin(), y.end()};
  }

  std::vector<double> back(std::span<const double> w) override {
    if (w.size() != count_) throw Error(str_cat("strip gl-compute: ", w.size(), " values for ", count_, " events"));
    gl::shared_context().make_current();
    const std::vector<float> wf(w.begin(), w.end());
    gl::Buffer wb(std::max<std::size_t>(1, wf.size()) * sizeof(float), wf.empty() ? nullptr : wf.data());
    gl::Buffer b(sizeof(float) * geom_.pixel_count());
    b.clear_zero();
    project(Projection::Back, rho_new_, wb, b);
    auto out = b.read<float>();
    return {out.begin(), out.end()};
  }

  void iterate() override {
    gl::shared_context().make_current();
    rho_new_.clear_zero();
    const gl::Program& p = iterate_->program;
    set_kernel_uniforms(*iterate_);
    events_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kEvents);
    rho_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kRho);
    rho_new_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kRhoNew);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    if (count_ > 0) {
      if (opt_.granularity == Granularity::warp) {
        // One work group (32 invocations) per event, at most 65535 groups looping over events.
        const std::size_t groups = std::min<std::size_t>(count_, 65535);
        p.dispatch(static_cast<int>(groups * 32));
      } else {
        const std::size_t invocations = std::min<std::size_t>(count_, std::size_t(65535) * 64);
        p.dispatch(static_cast<int>(invocations));
      }
    }
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    std::swap(rho_, rho_new_);
    glFinish();  // iterate() returns when done (timings, and the next set_image)
  }

 private:
  void set_kernel_uniforms(const KernelPass& pass) const {
    pass.program.use();
    const auto grid = geom_.grid<float>();
    pass.grid.set({grid.y0, grid.z0, grid.py, grid.pz});
    pass.dims.set({grid.ny, grid.nz});
    pass.kp.set({kp_.R, kp_.inv_vz, kp_.inv_vl, kp_.norm});
    pass.cut.set(kp_.cut);
    pass.count.set(static_cast<unsigned>(count_));
  }

  // project.comp.glsl: x as rho, the per-event values, the scatter sums as rho_new.
  void project(Projection which, const gl::Buffer& x, const gl::Buffer& values, const gl::Buffer& sums) {
    check_projection_budget();
    const KernelPass& pass = which == Projection::Forward ? *forward_ : *back_;
    const gl::Program& p = pass.program;
    set_kernel_uniforms(pass);
    events_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kEvents);
    x.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kRho);
    sums.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kRhoNew);
    values.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kValues);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    if (count_ > 0) p.dispatch(static_cast<int>(std::min<std::size_t>(count_, std::size_t(65535) * 64)));
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    glFinish();
  }

  // As check_loop_budget, for project.comp.glsl: one pass over the box per event (thread-wise).
  void check_projection_budget() const {
    const long long limit = gl::shared_context().info().caps.max_loop_iterations;
    if (limit <= 0 || count_ == 0) return;
    const long long per_invocation = (static_cast<long long>(count_) + 65535LL * 64 - 1) / (65535LL * 64);
    const long long iterations = per_invocation * (1 + max_rows_ + max_box_ * (float_atomics_ ? 1 : 2));
    if (iterations > limit)
      throw UnavailableError(str_cat("strip gl-compute forward/back: an event box of ", max_box_,
                                     " pixels needs about ", iterations, " shader loop iterations per invocation, beyond the ",
                                     limit, " this software OpenGL runs before cutting loops short"));
  }

  // Software GL (llvmpipe) silently cuts the loops of an invocation after
  // caps.max_loop_iterations iterations (found by the contract suite on a 0.5 mm grid):
  // bound this iteration's loop count from the largest event box and refuse beyond it.
  void check_loop_budget(std::span<const Event> events) {
    const long long limit = gl::shared_context().info().caps.max_loop_iterations;
    if (limit <= 0 || events.empty()) return;
    const auto grid = geom_.grid<float>();
    long long box = 0, rows = 0;
    for (const Event& e : events) {
      const PixelBox b = pixel_box(make_frame(e.z_u, e.z_d, e.dl, kp_), grid);
      if (b.j1 < b.j0 || b.k1 < b.k0) continue;
      box = std::max<long long>(box, 1LL * (b.j1 - b.j0 + 1) * (b.k1 - b.k0 + 1));
      rows = std::max<long long>(rows, b.j1 - b.j0 + 1);
    }
    max_box_ = box;
    max_rows_ = rows;
    const bool warp = opt_.granularity == Granularity::warp;
    const long long lanes = warp ? 32 : 1;
    const long long count = static_cast<long long>(events.size());
    // iterate() dispatches at most 65535 groups (warp: one per event; thread: 64 events each).
    const long long per_invocation = warp ? (count + 65534) / 65535 : (count + 65535LL * 64 - 1) / (65535LL * 64);
    // Two passes over the box (rows and pixels), plus one compare-and-swap per pixel without float atomics.
    const long long iterations = per_invocation * (1 + 2 * (rows + box / lanes) + (float_atomics_ ? 0 : box / lanes));
    if (iterations > limit)
      throw UnavailableError(str_cat("strip gl-compute (", to_string(opt_.granularity), " granularity): an event box of ",
                                     box, " pixels needs about ", iterations, " shader loop iterations per invocation, "
                                     "beyond the ", limit, " this software OpenGL (",
                                     gl::shared_context().info().gl_renderer,
                                     ") runs before cutting loops short; use granularity = \"warp\", larger pixels, "
                                     "or another backend"));
  }

  StripGeometry geom_;
  ProjectorOptions opt_;
  KernelParams<float> kp_{};
  bool float_atomics_ = false, subgroup_ = false;
  const KernelPass* iterate_ = nullptr;  // mlem_{thread,warp}.comp.glsl
  const KernelPass* forward_ = nullptr;  // project.comp.glsl, Projection::Forward
  const KernelPass* back_ = nullptr;     // project.comp.glsl, Projection::Back
  gl::Buffer events_, rho_, rho_new_;
  std::size_t count_ = 0;
  long long max_box_ = 0, max_rows_ = 0;  // the largest event box of set_events (software GL's loop budget)
};

const BackendRegistrar<ListModeProjector> kRegisterGlCompute({"gl-compute", kPriorityGlCompute, [] { return gl::availability({}); },
                                                       [] { return std::make_unique<GlComputeProjector>(); }});

}  // namespace

}  // namespace tomo::strip
