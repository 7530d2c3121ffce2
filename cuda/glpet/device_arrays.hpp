// glpet's cuda projector on vectors the caller owns on the GPU (CuPy/PyTorch arrays through
// DLPack in the Python module): forward/back without a host round trip.
#pragma once
#include <cstddef>
#include <memory>

#include "compute/glpet/projector.hpp"

namespace tomo::glpet {

class DeviceProjection {
 public:
  // `op`: the configured `cuda` projector (Error for any other backend), used for as long as
  // this object lives; `device`: the CUDA device it was configured on.
  DeviceProjection(Projector& op, std::size_t voxels, std::size_t lors, int device);
  ~DeviceProjection();
  DeviceProjection(const DeviceProjection&) = delete;
  DeviceProjection& operator=(const DeviceProjection&) = delete;

  // y = A x and b = Aᵀ y on device pointers (voxels / lors floats). Each waits for the device's
  // queued work first (the caller's writes on any stream), moves the input into the backend's
  // own vector by a device-to-device copy (its vectors may be GL buffers mapped into CUDA),
  // and returns when the output is written.
  void forward(const float* x, float* y);
  void back(const float* y, float* b);
  int device() const { return device_; }

 private:
  void run(const float* in, BackendBuffer& bin, std::size_t n_in, float* out, BackendBuffer& bout, std::size_t n_out,
           bool forward);
  Projector& op_;
  std::size_t voxels_, lors_;
  int device_;
  std::unique_ptr<BackendBuffer> image_, lor_;
};

}  // namespace tomo::glpet
