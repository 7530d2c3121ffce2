#include "renderer/viewer/session.hpp"

#include <algorithm>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/scene.hpp"
#include "renderer/viewer/bindings.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/uniform.hpp"
#include "renderer/glpet/gl_display_copy.hpp"
#include "compute/glpet/mlem.hpp"
#include "compute/glpet/measure.hpp"

namespace tomo::viewer {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
}  // namespace

GlpetSession::GlpetSession(const Scene& scene, const std::string& backend_request) {
  if (scene.problem() != "glpet")
    throw InputError(scene.source() + ": the viewer shows glpet scenes; run '" + scene.problem() +
                     "' scenes with `tomoraster run`");
  auto& reg = BackendRegistry<glpet::Projector>::instance();
  backend_ = reg.resolve(backend_request.empty() ? scene.get<std::string>("backend", "auto") : backend_request);
  glpet::Measurement m = glpet::measure(scene, backend_);  // the counts `tomoraster run` reconstructs
  g_ = std::move(m.scene);
  counts_ = std::move(m.mc.counts);
  simulate_ms_ = m.simulate_ms;
  log_info("viewer: Monte-Carlo ", m.mc.histories, " pairs, ", m.mc.detected, " detected (", simulate_ms_, " ms)");
  const auto& sys = g_.system;

  const auto t0 = Clock::now();
  op_ = reg.create(backend_);
  op_->configure(sys, g_.projector);
  corr_ = dynamic_cast<glpet::GlRasterProjector*>(op_.get());
  if (!corr_) {  // the correspondence pass is the raster backend's: a display-only instance
    own_corr_ = std::make_unique<glpet::GlRasterProjector>();
    own_corr_->configure(sys);
    corr_ = own_corr_.get();
  }
  configure_ms_ = ms_since(t0);
  // Vectors that are GL buffers live in the window's context, which is current on this
  // thread only: such backends (gl, gl-compute, cuda with interop) iterate here.
  render_thread_ = op_->make_image()->gl_name() != 0;
  gl::shared_context().make_current();
  log_info("viewer: ", backend_, " iterates on the ", render_thread_ ? "render thread (GPU-side display copies)" : "worker thread (display copies through the host)");

  image_ = gl::Buffer(std::max<std::size_t>(1, sys.voxel_count()) * sizeof(float));
  image_.clear_zero();
  measured_ = gl::Buffer::from(counts_);
  estimated_ = gl::Buffer(std::max<std::size_t>(1, sys.lor_count()) * sizeof(float));
  estimated_.clear_zero();
  stats_ = gl::Buffer(kStatCount * sizeof(unsigned));
  stats_.clear_zero();
  update_stat(measured_, counts_.size(), kStatMeasured);
}

GlpetSession::~GlpetSession() {
  stop_ = true;
  if (worker_.joinable()) worker_.join();
  try {
    gl::shared_context().make_current();  // GL names are freed in the window's context
  } catch (...) {
  }
}

void GlpetSession::update_stat(const gl::Buffer& data, std::size_t n, int slot) {
  // viewer/max.comp.glsl: the maximum of `n` values into stats slot `slot`.
  struct MaxPass {
    const gl::Program& program;
    gl::Uniform<unsigned> n, slot;
    explicit MaxPass(const gl::Program& p) : program(p), n(p, "u_n"), slot(p, "u_slot") {}
  };
  const auto& pass = gl::shaders().get_compute<MaxPass>("viewer/max.comp.glsl");
  const gl::Program& p = pass.program;
  const unsigned zero = 0;
  TOMO_GL_CHECK(glClearNamedBufferSubData(stats_.id(), GL_R32UI, slot * sizeof(unsigned), sizeof(unsigned),
                                          GL_RED_INTEGER, GL_UNSIGNED_INT, &zero));
  TOMO_GL_CHECK(glMemoryBarrier(GL_ALL_BARRIER_BITS));
  p.use();
  data.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kData);
  stats_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kStats);
  pass.n.set(unsigned(n));
  pass.slot.set(unsigned(slot));
  p.dispatch(int(std::min<std::size_t>(std::max<std::size_t>(n, 1), 64 * 256)));
  TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
}

// Render thread, vectors that are GL buffers: GPU-side copies of x (and of ỹ = A x when the
// atlas is shown) into the display buffers.
void GlpetSession::publish_device(int it, const glpet::BackendBuffer& x) {
  const auto& sys = g_.system;
  glpet::copy_to_gl(x, image_);
  update_stat(image_, sys.voxel_count(), kStatImage);
  if (want_estimate_) {
    if (!est_dev_) est_dev_ = op_->make_lors();
    op_->forward(x, *est_dev_);
    glpet::copy_to_gl(*est_dev_, estimated_);
    update_stat(estimated_, sys.lor_count(), kStatEstimated);
  }
  shown_iteration_ = it;
}

// Worker thread: host copies for the render thread.
void GlpetSession::publish_host(int it, const glpet::BackendBuffer& x) {
  std::vector<float> hx = glpet::download(x), he;
  if (want_estimate_) {
    if (!est_dev_) est_dev_ = op_->make_lors();
    op_->forward(x, *est_dev_);
    he = glpet::download(*est_dev_);
  }
  std::lock_guard lock(mutex_);
  pending_x_ = std::move(hx);
  if (!he.empty()) pending_est_ = std::move(he);
  pending_iteration_ = it;
  pending_ms_ = ms_since(last_);
  pending_ = true;
}

void GlpetSession::run(const std::function<bool()>& frame) {
  glpet::MlemOptions opt;
  opt.iterations = g_.iterations;
  opt.sensitivity_threshold = g_.sensitivity_threshold;
  opt.outside_fov = outside_field_of_view(g_.system.grid, g_.fov);  // as a run: the scanner's field of view
  last_ = Clock::now();
  if (render_thread_) {
    opt.on_iteration = [&](int it, const glpet::BackendBuffer& x) {
      iteration_ms_ = ms_since(last_);
      publish_device(it, x);
      last_ = Clock::now();
      return frame();  // false: the window closed, stop ML-EM
    };
    try {
      glpet::run_mlem(*op_, counts_, {}, opt);
    } catch (const std::exception& e) {
      error_ = e.what();
      log_error("viewer: reconstruction stopped: ", error_);
    }
    gl::shared_context().make_current();
    finished_ = true;
    return;
  }
  opt.on_iteration = [this](int it, const glpet::BackendBuffer& x) {
    publish_host(it, x);
    last_ = Clock::now();
    return !stop_;
  };
  worker_ = std::thread([this, opt] {
    try {
      glpet::run_mlem(*op_, counts_, {}, opt);
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex_);
      pending_error_ = e.what();
    }
    finished_ = true;
  });
}

bool GlpetSession::finished() {
  if (!finished_) return false;
  std::lock_guard lock(mutex_);
  return !pending_;
}

void GlpetSession::sync() {
  if (render_thread_) return;
  std::vector<float> x, est;
  int it = 0;
  {
    std::lock_guard lock(mutex_);
    if (!pending_error_.empty() && error_.empty()) {
      error_ = pending_error_;
      log_error("viewer: reconstruction stopped: ", error_);
    }
    if (!pending_) return;
    x.swap(pending_x_);
    est.swap(pending_est_);
    it = pending_iteration_;
    iteration_ms_ = pending_ms_;
    pending_ = false;
  }
  image_.upload(x.data(), x.size() * sizeof(float));
  update_stat(image_, x.size(), kStatImage);
  if (!est.empty()) {
    estimated_.upload(est.data(), est.size() * sizeof(float));
    update_stat(estimated_, est.size(), kStatEstimated);
  }
  shown_iteration_ = it;
}

}  // namespace tomo::viewer
