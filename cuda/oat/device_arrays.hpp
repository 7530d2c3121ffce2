// oat's H_int (forward u = Hα, adjoint α = Hᵀu) and FBP on memory the caller owns on the GPU
// (CuPy/PyTorch arrays through DLPack in the Python module): srt_kernels.hpp's and fbp_kernels.hpp's
// launchers run on it.
#pragma once
#include <memory>
#include <span>
#include <string>

#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

struct FbpChoice;  // cuda/oat/fbp_device.hpp

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

// The cuda Fbp (FbpDevice's exact fused formula) from pressure on the device into an image on the
// device: the data table is built on the GPU from the caller's p and the kernel writes the
// caller's image. FbpDevice supplies the kernel parameters and the read variant (its own table and
// image buffers are allocated but unused here); the shared-memory variant runs where available,
// else the __ldg one (no texture: the table stays in linear memory).
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
  FbpChoice choice() const;  // the variant it runs (shared or ldg)
  std::string describe() const;

 private:
  struct State;
  int device_ = 0;
  std::unique_ptr<State> s_;
};

}  // namespace tomo::oat
