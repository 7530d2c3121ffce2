// oat's H_int (forward u = Hα, adjoint α = Hᵀu) on memory the caller owns on the GPU (CuPy/PyTorch
// arrays through DLPack in the Python module): the srt/D/eir launchers of srt_kernels.hpp run on it.
#pragma once
#include <memory>
#include <string>

#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

class DeviceArrayModel {
 public:
  // On CUDA device `device` (the runtime's when < 0); keeps the frames, taps, the shell samples g,
  // p and (hardware interpolation) α's texture between calls. UnavailableError for models other
  // than interpolation, as the cuda Model backend.
  DeviceArrayModel(const OatGeometry& g, const ModelOptions& o, int device);
  ~DeviceArrayModel();
  DeviceArrayModel(const DeviceArrayModel&) = delete;
  DeviceArrayModel& operator=(const DeviceArrayModel&) = delete;

  // u (Q·K device floats, u[q·K + k]) = H α (grid-order device floats, x fastest). Waits for the
  // device's queued work first (the caller's writes on any stream); returns when u is written.
  void forward(const float* alpha, float* u);
  // alpha = Hᵀ u (overwritten), same rules.
  void adjoint(const float* u, float* alpha);
  std::size_t voxels() const;
  std::size_t data_samples() const;
  int device() const { return device_; }
  std::string describe() const;

 private:
  struct State;
  int device_ = 0;
  std::unique_ptr<State> s_;
};

}  // namespace tomo::oat
