// The cuda safir backend's made windows, kept on the device: an event window's sorted events,
// their acquisition order and (tiled pass) the tiled pass's records and plan, copied out of the
// projector's scratch once made, so that a window visited again (OSEM's subsets, every
// iteration) needs no new label-sort-plan. At most kMaxWindows windows and at most as many
// cached events as the event list holds (the subsets of one frame fit exactly); a window that
// does not fit empties the cache first, and the whole list (ML-EM's window) stays in the scratch.
#pragma once
#include <cuda_runtime_api.h>
#include <vector_functions.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/safir/tiled_pass.hpp"

namespace tomo::safir::cuda_impl {

struct MadeWindow {
  std::size_t first = 0, count = 0;
  std::array<std::size_t, 4> counts{};  // label counts (skip, x, y, z)
  TilePlan plan;
  cuda::DeviceBuffer<uint2> sorted;
  cuda::DeviceBuffer<std::uint32_t> order;
  cuda::DeviceBuffer<float4> records;  // empty for the fused pass
};

class WindowCache {
 public:
  static constexpr std::size_t kMaxWindows = 256;

  void clear() {
    windows_.clear();
    cached_ = 0;
  }
  const MadeWindow* find(std::size_t first, std::size_t count) const {
    for (const auto& w : windows_)
      if (w->first == first && w->count == count) return w.get();
    return nullptr;
  }
  // Copies a window just made in the scratch buffers; nullptr where it is not kept (the whole
  // list, or no device memory for it).
  const MadeWindow* keep(std::size_t first, std::size_t count, std::size_t total, const std::array<std::size_t, 4>& counts,
                         const TilePlan& plan, const uint2* sorted, const std::uint32_t* order, const float4* records,
                         cudaStream_t stream) {
    if (count == 0 || count >= total) return nullptr;
    if (windows_.size() >= kMaxWindows || cached_ + count > total) clear();
    const double bytes = double(count) * (sizeof(uint2) + sizeof(std::uint32_t) + (records ? sizeof(float4) : 0));
    try {
      cuda::require_device_memory(bytes, "safir cuda: a kept event window");
    } catch (const std::exception&) {
      return nullptr;  // the window is made again at each visit, as without the cache
    }
    auto w = std::make_unique<MadeWindow>();
    w->first = first, w->count = count, w->counts = counts, w->plan = plan;
    w->sorted.resize(count);
    w->order.resize(count);
    TOMO_CUDA_CHECK(cudaMemcpyAsync(w->sorted.data(), sorted, count * sizeof(uint2), cudaMemcpyDeviceToDevice, stream));
    TOMO_CUDA_CHECK(cudaMemcpyAsync(w->order.data(), order, count * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
    if (records) {
      w->records.resize(count);
      TOMO_CUDA_CHECK(cudaMemcpyAsync(w->records.data(), records, count * sizeof(float4), cudaMemcpyDeviceToDevice, stream));
    }
    cached_ += count;
    windows_.push_back(std::move(w));
    return windows_.back().get();
  }

 private:
  std::vector<std::unique_ptr<MadeWindow>> windows_;
  std::size_t cached_ = 0;
};

}  // namespace tomo::safir::cuda_impl
