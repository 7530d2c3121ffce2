// Stream: move-only RAII cudaStream_t (non-blocking w.r.t. the legacy default stream by default).
#pragma once
#include <cuda_runtime_api.h>

#include "cuda/core/event.hpp"

namespace tomo::cuda {

class Stream {
 public:
  explicit Stream(bool non_blocking = true, int priority = 0);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& o) noexcept;
  Stream& operator=(Stream&& o) noexcept;

  void synchronize() const;
  bool query() const;  // true when all work queued so far has completed
  // Later work on this stream waits for `event` (recorded on any stream).
  void wait(const Event& event) const;

  cudaStream_t get() const noexcept { return stream_; }
  operator cudaStream_t() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace tomo::cuda
