// safir's cuda backend on images, values and events the caller owns on the GPU (CuPy/PyTorch
// arrays through DLPack in the Python module): a thin adapter over the registered `cuda`
// ListModeOperator (its DeviceOperator calls), so Python's GPU arrays run the CLI's kernels.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "compute/safir/projector.hpp"

namespace tomo::safir {

class DeviceOperator;

class DeviceArrayProjector {
 public:
  // `op`: the configured `cuda` backend (Error for any other), used for as long as this object
  // lives, with its events, sensitivity and randoms; `voxels`: its box.count(); `device`: the
  // CUDA device it runs on.
  DeviceArrayProjector(ListModeOperator& op, std::size_t voxels, int device);

  // n events (2n uint32 crystal ids) in device memory, copied device to device into the
  // backend; InputError naming the first row with an id beyond the scanner.
  void set_events(const std::uint32_t* device_events, std::size_t n);
  std::size_t events() const;
  std::vector<Event> events_to_host() const;

  // Over all events. Each waits for the device's queued work first (the caller's writes on any
  // stream) and returns when its output is written.
  // y (one float per event, event order) = A f + randoms (0 for events that miss the box).
  void forward(const float* image, float* y);
  // image (box.count() floats, overwritten) = Aᵀ v, v one float per event in event order.
  void back(const float* v, float* image);
  // One ML-EM step, eq. (10), on the caller's image over the first `count` events (a window:
  // code sample 4's halving) with the backend's sensitivity and randoms, as run_mlem's.
  void iterate(float* image, std::size_t count);
  // image = value everywhere (ML-EM's start, f = 1).
  void fill(float* image, float value);
  int device() const { return device_; }

 private:
  void wait_for_caller() const;
  DeviceOperator& dev_;
  int device_;
  std::size_t voxels_;
};

}  // namespace tomo::safir
