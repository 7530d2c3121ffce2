// Event: RAII cudaEvent_t (see event.hpp).
#include "cuda/core/event.hpp"

#include <utility>

#include "cuda/core/check.hpp"

namespace tomo::cuda {

Event::Event(bool timing) {
  TOMO_CUDA_CHECK(cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming));
}
Event::~Event() {
  if (event_) TOMO_CUDA_LOG(cudaEventDestroy(event_));
}
Event::Event(Event&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    if (event_) TOMO_CUDA_LOG(cudaEventDestroy(event_));
    event_ = std::exchange(o.event_, nullptr);
  }
  return *this;
}

void Event::record(cudaStream_t stream) { TOMO_CUDA_CHECK(cudaEventRecord(event_, stream)); }
void Event::synchronize() const { TOMO_CUDA_CHECK(cudaEventSynchronize(event_)); }

bool Event::query() const {
  const cudaError_t err = cudaEventQuery(event_);
  if (err == cudaErrorNotReady) return false;
  TOMO_CUDA_CHECK(err);
  return true;
}

float Event::elapsed_ms(const Event& stop) const {
  stop.synchronize();
  float ms = 0.f;
  TOMO_CUDA_CHECK(cudaEventElapsedTime(&ms, event_, stop.event_));
  return ms;
}

}  // namespace tomo::cuda
