// The `gl-compute` backend of the strip operator: the thread- and warp-granularity iteration as
// GLSL compute shaders (shaders/strip/), float32, events resident in an SSBO for all iterations.
// Float atomics where the driver has GL_NV_shader_atomic_float, an exact CAS loop otherwise;
// subgroupAdd for the warp denominator where subgroups are 32 wide, shared memory otherwise.
#include <algorithm>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/objects.hpp"
#include "compute/strip/projector.hpp"

namespace tomo::strip {

namespace {

class GlComputeProjector final : public ListModeProjector {
 public:
  std::string describe() const override {
    return str_cat("gl-compute (", to_string(opt_.granularity), " granularity, float32", float_atomics_ ? ", float atomics" : ", CAS atomics",
                   subgroup_ ? ", subgroupAdd" : "", "): ", gl::shared_context().info().summary());
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
    program_ = &gl::shaders().compute(o.granularity == Granularity::warp ? "strip/mlem_warp.comp.glsl" : "strip/mlem_thread.comp.glsl",
                                      defs);
    const std::size_t bytes = sizeof(float) * g.pixel_count();
    rho_ = gl::Buffer(bytes);
    rho_new_ = gl::Buffer(bytes);
    events_ = gl::Buffer();
    count_ = 0;
  }

  void set_events(std::span<const Event> events) override {
    gl::shared_context().make_current();
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

  void iterate() override {
    gl::shared_context().make_current();
    rho_new_.clear_zero();
    const gl::Program& p = *program_;
    p.use();
    const auto grid = geom_.grid<float>();
    p.set("u_grid", grid.y0, grid.z0, grid.py, grid.pz);
    p.set("u_dims", grid.ny, grid.nz);
    p.set("u_kp", kp_.R, kp_.inv_vz, kp_.inv_vl, kp_.norm);
    p.set("u_cut", kp_.cut);
    p.set("u_count", static_cast<unsigned>(count_));
    events_.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
    rho_.bind_base(GL_SHADER_STORAGE_BUFFER, 1);
    rho_new_.bind_base(GL_SHADER_STORAGE_BUFFER, 2);
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
  StripGeometry geom_;
  ProjectorOptions opt_;
  KernelParams<float> kp_{};
  bool float_atomics_ = false, subgroup_ = false;
  const gl::Program* program_ = nullptr;
  gl::Buffer events_, rho_, rho_new_;
  std::size_t count_ = 0;
};

const BackendRegistrar<ListModeProjector> kRegisterGlCompute({"gl-compute", kPriorityGlCompute, [] { return gl::availability({}); },
                                                       [] { return std::make_unique<GlComputeProjector>(); }});

}  // namespace

}  // namespace tomo::strip
