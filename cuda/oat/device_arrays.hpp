// oat's H_int (forward u = Hα, adjoint α = Hᵀu) and FBP on memory the caller owns on the GPU
// (CuPy/PyTorch arrays through DLPack in the Python module): thin adapters over ModelDevice and
// FbpDevice, the objects the registered `cuda` backends run, so both paths run the same kernels.
// The caller's arrays move in and out by device-to-device copies.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

class DeviceArrayModel {
 public:
  // On CUDA device `device` (the runtime's when < 0); a ModelDevice kept between calls.
  // UnavailableError for models other than interpolation, as the cuda Model backend.
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

// The cuda Fbp from pressure on the device into an image on the device: FbpDevice builds its table
// on the GPU from the caller's p (FbpDevice::upload_device) and runs the kernel the cuda backend
// runs (FbpDevice::choose()); the image is copied into the caller's.
class DeviceArrayFbp {
 public:
  // On runtime_options().cuda_device (FbpDevice's choice).
  explicit DeviceArrayFbp(const OatGeometry& g);
  ~DeviceArrayFbp();
  DeviceArrayFbp(const DeviceArrayFbp&) = delete;
  DeviceArrayFbp& operator=(const DeviceArrayFbp&) = delete;

  // image (grid order, x fastest, device floats) = FBP of p (Q·K device floats, p[q·K + k], the
  // EIR-free pressure). Waits for the device's queued work first; returns when image is written.
  void reconstruct(const float* p, float* image);
  // The same from host pressure (a host step's output), rounded to float.
  void reconstruct(std::span<const double> p, float* image);
  // reconstruct() of deconvolve_eir(g, u, cutoff_mhz) (compute/oat/deconvolution.hpp: EIR and Hann
  // window; u itself when there is no EIR and cutoff ≤ 0), u (Q·K) device floats, all on the GPU:
  // deconvolve_eir is a cropped circular convolution, so its kernel h_m (|m| < K, from its response
  // to two impulses, on the host once per cutoff) applied directly (Q·K² multiply-adds in double)
  // gives its output to rounding.
  void reconstruct_deconvolved(const float* u, double cutoff_mhz, float* image);
  std::size_t voxels() const;
  std::size_t data_samples() const;
  int device() const { return device_; }
  std::string_view kernel() const;  // the kernel it runs (FbpDevice::choose())
  std::string describe() const;

 private:
  struct State;
  int device_ = 0;
  std::unique_ptr<State> s_;
};

}  // namespace tomo::oat
