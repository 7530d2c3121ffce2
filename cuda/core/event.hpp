// Event: move-only RAII cudaEvent_t for ordering streams and timing GPU work.
#pragma once
#include <cuda_runtime_api.h>

namespace tomo::cuda {

class Event {
 public:
  // timing = false creates a lighter event (cudaEventDisableTiming) for pure synchronization.
  explicit Event(bool timing = true);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept;
  Event& operator=(Event&& o) noexcept;

  void record(cudaStream_t stream = nullptr);
  void synchronize() const;
  bool query() const;  // true when the recorded work has completed

  // Milliseconds from this event (the start) to `stop`; both must be recorded and timing-enabled.
  // Waits for `stop` to complete first.
  float elapsed_ms(const Event& stop) const;

  cudaEvent_t get() const noexcept { return event_; }
  operator cudaEvent_t() const noexcept { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace tomo::cuda
