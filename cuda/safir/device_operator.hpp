// The safir cuda backend on device memory the caller owns (CuPy/PyTorch arrays through
// cuda/safir/device_arrays): the same kernels, windows and tile plans as its ListModeOperator
// calls, with the image and the per-event values read and written in place instead of through
// host vectors. The cuda backend implements it; nothing else does.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "compute/safir/scanner.hpp"

namespace tomo::safir {

class DeviceOperator {
 public:
  virtual ~DeviceOperator() = default;

  // n events (2n uint32 crystal ids, a then b) in device memory: checked on the GPU (InputError
  // naming the first row with an id beyond the scanner), copied device to device; window = all.
  virtual void set_events_device(const std::uint32_t* ids, std::size_t n) = 0;
  virtual std::size_t event_count() const = 0;
  virtual std::vector<Event> events_to_host() const = 0;
  // set_window(first, count) unless that is the window already (the sort is kept).
  virtual void use_window(std::size_t first, std::size_t count) = 0;

  // As forward(): y (one float per window event, window order, 0 for label 0) = A f + randoms,
  // f the caller's box.count() floats (copied into the backend's image).
  virtual void forward_device(const float* f, float* y) = 0;
  // As back(v): image (box.count() floats, overwritten) = Aᵀ v, v one float per window event.
  virtual void back_device(const float* v, float* image) = 0;
  // As iterate(): one ML-EM step of eq. (10) on the caller's image, in place.
  virtual void iterate_device(float* image) = 0;
};

}  // namespace tomo::safir
