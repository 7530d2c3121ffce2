// Event: move-only RAII cudaEvent_t for ordering streams and timing GPU work.
#pragma once
#include <cuda_runtime_api.h>

#include <algorithm>

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

// The shortest of `reps` (at least one) timings of work() on `stream` by a pair of events, after
// one untimed warm-up call: how the benches time a kernel or a short sequence of them.
template <class F>
double best_event_ms(cudaStream_t stream, int reps, F&& work) {
  work();
  Event a, b;
  double best = 1e300;
  for (int r = 0; r < std::max(1, reps); ++r) {
    a.record(stream);
    work();
    b.record(stream);
    b.synchronize();
    best = std::min(best, static_cast<double>(a.elapsed_ms(b)));
  }
  return best;
}

}  // namespace tomo::cuda
