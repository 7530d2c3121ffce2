// safir's list-mode forward/back (seed 002 §5) on images and values the caller owns on the GPU
// (CuPy/PyTorch through DLPack in the Python module): the events are sorted once by the cuda
// backend's CUB launcher, then the fused gather/atomic kernels run on the caller's memory.
#pragma once
#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "compute/safir/scanner.hpp"

namespace tomo::safir {

class DeviceArrayProjector {
 public:
  // On CUDA device `device` (the runtime's when < 0); `events` are checked against the scanner
  // by the caller, uploaded and sorted by label here (label 0 events miss the box).
  DeviceArrayProjector(const Scanner& scanner, const ImageBox& box, std::span<const Event> events, int device);
  ~DeviceArrayProjector();
  DeviceArrayProjector(const DeviceArrayProjector&) = delete;
  DeviceArrayProjector& operator=(const DeviceArrayProjector&) = delete;

  // y (one float per event, event order) = A f + randoms (0 for events that miss the box).
  // Waits for the device's queued work first (the caller's writes on any stream).
  void forward(const float* image, float* y, float randoms);
  // image (box.count() floats, overwritten) = Aᵀ v, v one float per event in event order.
  void back(const float* v, float* image);
  std::size_t events() const;
  int device() const { return device_; }

 private:
  struct State;
  int device_ = 0;
  std::unique_ptr<State> s_;
};

}  // namespace tomo::safir
