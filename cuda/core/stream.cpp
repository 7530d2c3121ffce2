// Stream: RAII cudaStream_t (see stream.hpp).
#include "cuda/core/stream.hpp"

#include <utility>

#include "cuda/core/check.hpp"

namespace tomo::cuda {

Stream::Stream(bool non_blocking, int priority) {
  TOMO_CUDA_CHECK(
      cudaStreamCreateWithPriority(&stream_, non_blocking ? cudaStreamNonBlocking : cudaStreamDefault, priority));
}
Stream::~Stream() {
  if (stream_) TOMO_CUDA_LOG(cudaStreamDestroy(stream_));
}
Stream::Stream(Stream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    if (stream_) TOMO_CUDA_LOG(cudaStreamDestroy(stream_));
    stream_ = std::exchange(o.stream_, nullptr);
  }
  return *this;
}

void Stream::synchronize() const { TOMO_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

bool Stream::query() const {
  const cudaError_t err = cudaStreamQuery(stream_);
  if (err == cudaErrorNotReady) return false;
  TOMO_CUDA_CHECK(err);
  return true;
}

void Stream::wait(const Event& event) const { TOMO_CUDA_CHECK(cudaStreamWaitEvent(stream_, event.get(), 0)); }

}  // namespace tomo::cuda
