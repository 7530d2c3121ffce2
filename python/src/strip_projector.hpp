// The class behind tomoraster.strip's Projector: the scene's strip-PET list-mode operator on
// NumPy (and, with the cuda backend, CUDA) event arrays. Its operator calls are defined in
// strip.cpp, its reconstruction layer in strip_reconstruct.cpp; strip.cpp binds it.
#pragma once
#include <nanobind/stl/pair.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "compute/strip/config.hpp"
#include "compute/strip/geometry.hpp"
#include "compute/strip/projector.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/device.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/strip/device_arrays.hpp"
#endif

namespace tomo::py {

class StripProjector {
 public:
  StripProjector(const std::string& scene, bool is_text, const std::vector<std::string>& sets, const std::string& backend);

  std::vector<std::size_t> image_shape() const { return {std::size_t(c_.geometry.n_y), std::size_t(c_.geometry.n_z)}; }

  // y_j = Σ_i P(ẽ_j|i) x_i over the 3σ ellipse of each event (the backend's forward).
  DoubleArray forward(const AnyArray& x, const AnyArray& events);

  // b_i = Σ_j P(ẽ_j|i) w_j, the transpose of forward() (the backend's back).
  DoubleArray back(const AnyArray& w, const AnyArray& events);

  void set_events(const AnyArray& events);

  // One step of eq. (5) on the backend from ρ' = rho_prime (events from set_events).
  DoubleArray iterate(const AnyArray& rho_prime);

  // run_mlem from ρ' = 1: (ρ, ρ') after `iterations` (or where callback(t, ρ) returned False).
  std::pair<DoubleArray, DoubleArray> mlem(int iterations, nb::object callback);

  // The reconstruction layer (docs/pet.md) over ρ', as the CLI's run: the scene's [strip] keys
  // with `keys` ("strip.algorithm=...", the Python keywords) as overrides, read by the CLI's
  // reader. x0: a start ρ' or None (strip.initial_image, or the flat start). Returns
  // (ρ, ρ', [(iteration, ρ'), ...] of save_iterations).
  nb::tuple reconstruct(const std::vector<std::string>& keys, const AnyArray& events, nb::object x0, nb::object callback);

  DoubleArray sensitivity() const { return to_numpy(strip::sensitivity_image(c_.geometry), image_shape()); }
  std::string describe() const { return op_->describe(); }
  std::string backend() const { return backend_; }
  int device() const { return device_; }
  // CUDA arrays in place (cuda backend; float32): y (N,) = A x for x (n_y, n_z) and events (N, 3)
  // on the GPU, b (n_y, n_z) = Aᵀ w; set_events of a CUDA list (copied device-to-device); one EM
  // step ρ' → out (out may be rho_prime); ML-EM from ρ' = 1 into the caller's rho and rho_prime.
  void forward_device(const AnyArray& x, const AnyArray& events, const OutArray& out);
  void back_device(const AnyArray& w, const AnyArray& events, const OutArray& out);
  void set_events_device(const AnyArray& events);
  void iterate_device(const AnyArray& rho_prime, const OutArray& out);
  // callback(t) after iteration t with rho written (the Python side passes rho on); False stops.
  void mlem_device(int iterations, nb::object callback, const OutArray& rho, const OutArray& rho_prime);

  int iterations() const { return c_.iterations; }
  std::vector<double> pixel_mm() const { return {c_.geometry.pixel_y, c_.geometry.pixel_z}; }

 private:
  // Pixels outside the strips' field of view (strip.fov_mask), held at 0 as a run does.
  std::vector<std::uint8_t> outside_fov() const;
  DoubleArray rho_of(const std::vector<double>& rp, const std::vector<double>& s) const;
  void require_events() const;
  static std::vector<std::size_t> events_shape(const AnyArray& a) { return {a.ndim() ? a.shape(0) : 0, 3}; }
  void require_device_backend(const char* name) const;
  // forward/back of NumPy arrays put their events into the backend: the list of set_events is
  // kept on the host first (a download for a CUDA list) and put back before the next EM step.
  void use_events(std::span<const strip::Event> ev);
  void ensure_current_events();
#ifdef TOMO_HAVE_CUDA
  strip::DeviceArrayProjector& device_path();
#endif

  SceneArgs scene_;
  strip::StripConfig c_;
  std::unique_ptr<strip::ListModeProjector> op_;
  std::vector<strip::Event> events_;  // the list of set_events, when host_copy_
  bool host_copy_ = false;  // events_ holds it (else only the backend does: a CUDA list)
  bool op_current_ = false;  // the backend holds it (not forward/back's events)
  std::size_t event_count_ = 0;
  std::string backend_;
  int device_ = 0;
#ifdef TOMO_HAVE_CUDA
  std::unique_ptr<strip::DeviceArrayProjector> dev_;  // over op_ (cuda backend only)
#endif
};

}  // namespace tomo::py
