// The event side of the safir `cuda` backend (cuda_projector.hpp): the list resident on the GPU,
// from host events (ids checked on the host), from the caller's device memory (ids checked by a
// kernel, the lowest bad row named) or made on the device as the sensitivity's crystal pairs; the
// buffers sized per event; a copy back to the host.
#include <cuda_runtime_api.h>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/safir/cuda_projector.hpp"
#include "cuda/safir/device_arrays_kernels.hpp"

namespace tomo::safir::cuda_impl {

std::uint32_t CudaProjector::crystal_count() const {
  if (!configured_) throw Error("safir cuda: no scanner yet: configure() the operator first");
  return scanner_.crystal_count();
}

void CudaProjector::set_events(std::span<const Event> events) {
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].a >= scanner_.crystal_count() || events[i].b >= scanner_.crystal_count())
      throw InputError(str_cat("safir: event ", i, " names a crystal beyond the scanner's ", scanner_.crystal_count()));
  stream_->synchronize();
  resize_events(events.size());
  if (total_) events_.upload(reinterpret_cast<const uint2*>(events.data()), total_);
  set_window(0, total_);
}

void CudaProjector::set_events_device(const std::uint32_t* ids, std::size_t n) {
  if (n && !ids) throw Error("safir cuda: null events");
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's writes of the events, on any stream
  resize_events(n);
  if (n) TOMO_CUDA_CHECK(cudaMemcpyAsync(events_.data(), ids, n * sizeof(uint2), cudaMemcpyDeviceToDevice, *stream_));
  // label_and_sort reads crystals[id] unchecked: the lowest bad row first, into a scratch word.
  const unsigned long long none = n;
  sort_.counts.upload_async(&none, 1, *stream_);
  launch_find_bad_events(reinterpret_cast<const std::uint32_t*>(events_.data()), n, scanner_.crystal_count(),
                         sort_.counts.data(), *stream_);
  unsigned long long bad = none;
  sort_.counts.download_async(&bad, 1, *stream_);
  stream_->synchronize();
  if (bad < n) {
    resize_events(0);
    throw InputError(str_cat("events: row ", bad, " names a crystal id not below the scanner's ",
                             scanner_.crystal_count(), " crystals"));
  }
  set_window(0, total_);
}

void CudaProjector::set_pair_events(std::span<const std::uint32_t> first) {
  const std::uint32_t n = crystal_count();
  for (const std::uint32_t a : first)
    if (a >= n) throw InputError(str_cat("safir: pair crystal ", a, " beyond the scanner's ", n));
  stream_->synchronize();
  resize_events(first.size() * (n - 1));
  if (total_) {
    pair_firsts_.resize(first.size());
    pair_firsts_.upload_async(first.data(), first.size(), *stream_);
    launch_pair_events(pair_firsts_.data(), first.size(), n,
                       reinterpret_cast<std::uint32_t*>(events_.data()), *stream_);
  }
  set_window(0, total_);
}

std::vector<Event> CudaProjector::events_to_host() const {
  std::vector<Event> out(total_);
  if (total_) events_.download_async(reinterpret_cast<uint2*>(out.data()), total_, *stream_);
  stream_->synchronize();
  return out;
}

void CudaProjector::resize_events(std::size_t n) {
  const double per_event = tiled_ ? 46.0 : 30.0;
  const double need = per_event * double(n) - per_event * double(total_);
  if (need > 0) cuda::require_device_memory(need, "safir cuda: the event list (safir.events)");
  made_.clear();
  total_ = n;
  values_zero_ = most_ = 0;  // values_ is made anew
  events_.resize(total_);
  sort_.resize(total_);
  values_.resize(total_);
  records_.resize(tiled_ ? total_ : 0);
}

}  // namespace tomo::safir::cuda_impl
