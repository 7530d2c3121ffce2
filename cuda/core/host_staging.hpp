// Host ↔ device copies of pageable memory (NumPy arrays) through two reused page-locked buffers:
// host threads copy slab i into one buffer while the GPU's copy engine moves slab i − 1 through
// the other. cudaMemcpy from pageable memory stages through the driver's own small pinned
// buffer with one thread and, into a fresh array, first-touches every page on that thread; here
// both sides of the link run at once and the host side is spread over several threads (a fresh
// destination is paged in by all of them).
#pragma once
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <functional>

#include "cuda/core/event.hpp"
#include "cuda/core/pinned_buffer.hpp"

namespace tomo::cuda {

// memcpy split over up to 16 host threads (OpenMP's, 1 MiB or more each): one thread's copy into
// page-locked memory, or into fresh pages of a new array, is slower than the link it feeds (H200:
// 4 threads copied 32 MiB chunks at 18 GB/s, 8 at 28 GB/s).
void parallel_copy(void* dst, const void* src, std::size_t bytes);

class HostStaging {
 public:
  // Each of the two buffers holds `slab` floats (allocated on first use).
  explicit HostStaging(std::size_t slab = 0) : slab_(slab) {}
  HostStaging(const HostStaging&) = delete;
  HostStaging& operator=(const HostStaging&) = delete;
  ~HostStaging();

  // Buffers of `slab` floats from now on (the old ones freed once idle).
  void set_slab(std::size_t slab);
  std::size_t slab() const { return slab_; }

  // n floats of host `src` into device `dst`, queued on `stream` slab by slab. Returns when `src`
  // has been read; the last uploads may still run on `stream`, which orders later work after them.
  void upload(const float* src, float* dst, std::size_t n, cudaStream_t stream);
  // n floats of device `src` into host `dst` (pageable, possibly never touched), queued on
  // `stream`; before slab [begin, end)'s copy is queued, ready(begin, end) runs (to queue or wait
  // for the work that writes src[begin, end): the copy follows whatever `stream` then holds).
  // Returns when `dst` is written.
  void download(const float* src, float* dst, std::size_t n, cudaStream_t stream,
                const std::function<void(std::size_t, std::size_t)>& ready = {});

  // One buffer for a caller that interleaves its own work (DeviceFdk's chunks): wait until the
  // copy that last read buffer `s` (0 or 1) has finished, then fill it; after queuing its copy
  // on `stream`, released(s, stream).
  float* acquire(int s);
  void released(int s, cudaStream_t stream);
  // Waits for every queued copy of both buffers.
  void wait_idle();
  // Host time spent in acquire() waiting for the GPU (ms) since the last reset.
  double wait_ms() const { return wait_ms_; }
  void reset_wait() { wait_ms_ = 0; }

 private:
  std::size_t slab_ = 0;
  std::array<PinnedBuffer<float>, 2> buf_;
  std::array<Event, 2> free_{Event(false), Event(false)};
  std::array<bool, 2> used_{false, false};
  double wait_ms_ = 0;
};

}  // namespace tomo::cuda
