// safir's list-mode forward/back and ML-EM step ([Locans2017] §5) on images, values and events the
// caller owns on the GPU (CuPy/PyTorch through DLPack in the Python module): the events are sorted
// by the cuda backend's CUB launcher, then its fused gather/atomic kernels run on the caller's memory.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compute/safir/scanner.hpp"

namespace tomo::safir {

class DeviceArrayProjector {
 public:
  // On CUDA device `device` (the runtime's when < 0); `events` are checked against the scanner
  // by the caller, uploaded and sorted by label here (label 0 events miss the box).
  DeviceArrayProjector(const Scanner& scanner, const ImageBox& box, std::span<const Event> events, int device);
  // The same from n events (2n uint32 crystal ids, a then b) in device memory of `device`,
  // copied device-to-device; InputError naming the first row with an id beyond the scanner.
  DeviceArrayProjector(const Scanner& scanner, const ImageBox& box, const std::uint32_t* device_events, std::size_t n,
                       int device);
  ~DeviceArrayProjector();
  DeviceArrayProjector(const DeviceArrayProjector&) = delete;
  DeviceArrayProjector& operator=(const DeviceArrayProjector&) = delete;

  // y (one float per event, event order) = A f + randoms (0 for events that miss the box).
  // Waits for the device's queued work first (the caller's writes on any stream).
  void forward(const float* image, float* y, float randoms);
  // image (box.count() floats, overwritten) = Aᵀ v, v one float per event in event order.
  void back(const float* v, float* image);
  std::size_t events() const;
  std::vector<Event> events_to_host() const;
  int device() const { return device_; }

  // ML-EM on the caller's image: set_sensitivity once (box.count() values, Σ_i a_ij), then each
  // iterate() is eq. (10) f_j ← f_j/s_j · Σ_l a_lj/(Σ_k a_lk f_k + randoms) over the first `count`
  // events (a window: code sample 4's halving), by the fused pass (launch_mlem, launch_update).
  void set_sensitivity(std::span<const double> s);
  void iterate(float* image, std::size_t count, float randoms);
  // image = value everywhere (ML-EM's start, f = 1).
  void fill(float* image, float value);

 private:
  struct State;
  void init(const Scanner& scanner, const ImageBox& box, int device, std::size_t n);
  void sort(std::size_t count);  // label and sort events [0, count) unless they are already
  int device_ = 0;
  std::unique_ptr<State> s_;
};

}  // namespace tomo::safir
