// What the viewer shows of a glpet scene: the simulated measurement (independent
// Monte-Carlo, as `tomoraster run`), ML-EM on the chosen backend and the display copies
// of the iterate and the atlases as GL buffers. Backends whose vectors are GL buffers (gl,
// gl-compute, and cuda through CUDA-GL interop) iterate on the render thread, whose GL
// context they use, and are copied GPU-side (no host round trip); the others iterate on a
// worker thread and the render thread uploads each new iterate.
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "renderer/gl/objects.hpp"
#include "renderer/glpet/gl_projector.hpp"
#include "compute/glpet/config.hpp"

namespace tomo {
class Scene;
}

namespace tomo::viewer {

// Slots of stats(): the maximum of each displayed vector (float bits as uint).
enum StatSlot { kStatImage = 0, kStatMeasured = 1, kStatEstimated = 2, kStatCount = 4 };

class GlpetSession {
 public:
  // The GL context (the window's) must be installed in the engine. Throws InputError for a
  // scene of another problem.
  GlpetSession(const Scene& scene, const std::string& backend_request);
  ~GlpetSession();

  const glpet::SystemModel& system() const { return g_.system; }
  const std::string& backend() const { return backend_; }
  int planned_iterations() const { return g_.iterations; }

  // Runs ML-EM. Backends with GL-buffer vectors (on_render_thread()): here, calling `frame`
  // after each iteration (return false to stop early). Others: on a worker thread; returns at once.
  void run(const std::function<bool()>& frame);
  // True once ML-EM has ended and its last iterate is on display.
  bool finished();
  // Render thread, once per frame: uploads an iterate the worker has published.
  void sync();

  bool on_render_thread() const { return render_thread_; }
  int iteration() const { return shown_iteration_; }
  double iteration_ms() const { return iteration_ms_; }
  double simulate_ms() const { return simulate_ms_; }
  double configure_ms() const { return configure_ms_; }
  const std::string& error() const { return error_; }
  // Also compute ỹ = A x of each new iterate (atlas view).
  void want_estimate(bool on) { want_estimate_ = on; }

  const gl::Buffer& image() const { return image_; }          // voxel_count floats
  const gl::Buffer& measured() const { return measured_; }    // lor_count floats
  const gl::Buffer& estimated() const { return estimated_; }  // lor_count floats
  const gl::Buffer& stats() const { return stats_; }          // kStatCount uints
  glpet::GlRasterProjector& correspondence() { return *corr_; }

 private:
  void publish_device(int it, const glpet::BackendBuffer& x);
  void publish_host(int it, const glpet::BackendBuffer& x);
  void update_stat(const gl::Buffer& data, std::size_t n, int slot);

  glpet::GlpetScene g_;
  std::string backend_;
  bool render_thread_ = true;
  std::vector<float> counts_;
  std::unique_ptr<glpet::Projector> op_;
  std::unique_ptr<glpet::GlRasterProjector> own_corr_;  // when the backend is not `gl`
  glpet::GlRasterProjector* corr_ = nullptr;
  std::unique_ptr<glpet::BackendBuffer> est_dev_;
  gl::Buffer image_, measured_, estimated_, stats_;

  std::atomic<bool> want_estimate_{false}, finished_{false}, stop_{false};
  int shown_iteration_ = 0;
  double iteration_ms_ = 0, simulate_ms_ = 0, configure_ms_ = 0;
  std::string error_;
  std::chrono::steady_clock::time_point last_;

  // Worker hand-over (host copies of the newest iterate).
  std::thread worker_;
  std::mutex mutex_;
  bool pending_ = false;
  int pending_iteration_ = 0;
  double pending_ms_ = 0;
  std::vector<float> pending_x_, pending_est_;
  std::string pending_error_;
};

}  // namespace tomo::viewer
