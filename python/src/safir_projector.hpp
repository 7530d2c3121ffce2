// The class behind tomoraster.safir's Projector: the scene's list-mode operator on NumPy (and,
// with the cuda backend, CUDA) arrays. Its operator calls are defined in safir.cpp, its
// reconstruction layer in safir_reconstruct.cpp; safir.cpp binds it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compute/safir/config.hpp"
#include "compute/safir/projector.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/device.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/safir/device_arrays.hpp"
#endif

namespace tomo::py {

class SafirProjector {
 public:
  SafirProjector(const std::string& scene, bool is_text, const std::vector<std::string>& sets, const std::string& backend);

  std::vector<std::size_t> image_shape() const { return {std::size_t(c_.box.n[2]), std::size_t(c_.box.n[1]), std::size_t(c_.box.n[0])}; }
  void set_events(const AnyArray& events);
  // A CUDA (N, 2) uint32 list (cuda backend): checked and sorted on the GPU, copied device to
  // device into the backend; a host copy is made only if a NumPy call needs one.
  void set_events_device(const AnyArray& events);

  // ȳ_l = Σ_j a_lj x_j + n of every event (event order).
  DoubleArray forward(const AnyArray& x);
  // Σ_l a_lj v_l.
  DoubleArray back(const AnyArray& v);
  // Σ_i a_ij over all crystal pairs (the scene's sensitivity mode), computed once.
  DoubleArray sensitivity();
  void set_randoms_per_lor(double n);
  // CUDA arrays in place (cuda backend): y (N,) float32 = A x + n for x (z, y, x) float32; or the
  // image Aᵀ v for v (N,) float32 — the cuda backend's passes on the caller's memory.
  void forward_device(const AnyArray& x, const OutArray& out);
  void back_device(const AnyArray& v, const OutArray& out);
  // run_mlem over all events from f = 1; callback(t, image) per iteration, False stops.
  DoubleArray mlem(int iterations, bool halve_events, nb::object callback);
  // ML-EM with every vector on the GPU (cuda backend): f = 1 in the caller's float32 image, then
  // eq. (10) by the backend's pass per iteration (the sensitivity computed once, as mlem's);
  // callback(t) after iteration t with the image written; False stops.
  void mlem_device(int iterations, bool halve_events, nb::object callback, const OutArray& out);
  // The reconstruction layer (docs/pet.md) over the events as one frame, as the CLI's run: the
  // scene's [safir] keys with `keys` ("safir.algorithm=...", the Python keywords) as overrides,
  // read by the CLI's reader. delayed: the delayed coincidences (the randoms estimate when no
  // randoms term is given); x0: a start image or None (safir.initial_image, or ones). Returns
  // (image, [(iteration, image), ...] of save_iterations).
  nb::tuple reconstruct(const std::vector<std::string>& keys, const AnyArray& events, double delayed, nb::object x0,
                        nb::object callback);
  std::string describe() const { return op_->describe(); }
  int iterations() const { return c_.mlem.iterations; }
  std::size_t event_count() const;

 private:
  void require_events() const;
  // Events given as a CUDA array, brought to the host once when a NumPy call needs them.
  void ensure_host_events();
  void require_cuda_backend(const std::string& name) const;
  const std::uint32_t* device_events_input(const AnyArray& a) const;
  // After a reconstruction: the events in the caller's order again, the randoms of set_randoms_per_lor
  // 0 and, after a weighted sensitivity, the plain one back in the operator (for forward/back/mlem).
  void restore_events();
  void upload_events();
  void ensure_sensitivity();

  const float* device_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape) const;
#ifdef TOMO_HAVE_CUDA
  safir::DeviceArrayProjector& device_projector();
#endif

  SceneArgs scene_;
  safir::SafirConfig c_;
  bool weighted_ = false;  // the operator holds a weighted sensitivity (a reconstruction's terms)
  std::string backend_;
  std::unique_ptr<safir::ListModeOperator> op_;
  std::vector<safir::Event> events_;
  bool host_events_ = false;  // events_ (and the backend's copy) hold the current list
  std::optional<std::vector<double>> s_;
  std::vector<double> s_fov_;  // s_ with 0 outside the field of view: the operator's sensitivity
  int device_ = 0;
#ifdef TOMO_HAVE_CUDA
  std::unique_ptr<safir::DeviceArrayProjector> dev_;  // over op_ (cuda backend only)
#endif
};

}  // namespace tomo::py
