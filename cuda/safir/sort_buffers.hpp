// The device side of safir's label-and-sort pass (kernels.hpp, SortArgs) in one place: the
// crystals as the kernels read them and the buffers the sort needs, for the cuda projector, the
// device-array projector (Python) and bench_safir, which each ran the same setup by hand.
#pragma once
#include <cuda_runtime_api.h>
#include <vector_functions.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "compute/safir/scanner.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/safir/kernels.hpp"

namespace tomo::safir::cuda_impl {

// The scanner's crystal centres as the kernels read them (float4, w unused), on the device.
inline cuda::DeviceBuffer<float4> crystal_buffer(const Scanner& scanner) {
  const auto positions = scanner.positions();
  std::vector<float4> pos;
  pos.reserve(positions.size());
  for (const auto& p : positions) pos.push_back(make_float4(float(p[0]), float(p[1]), float(p[2]), 0.f));
  return cuda::DeviceBuffer<float4>(std::span<const float4>(pos));
}

// The same in double, x y z per crystal (the tiled pass's records are computed in double).
inline cuda::DeviceBuffer<double> crystal_buffer_double(const Scanner& scanner) {
  std::vector<double> pos;
  for (const auto& p : scanner.positions()) pos.insert(pos.end(), {p[0], p[1], p[2]});
  return cuda::DeviceBuffer<double>(std::span<const double>(pos));
}

struct SortBuffers {
  cuda::DeviceBuffer<std::uint8_t> keys_in, keys_out, temp;
  cuda::DeviceBuffer<std::uint32_t> order_in, order_out;
  cuda::DeviceBuffer<uint2> sorted;  // the window's events by label, packed (kernels.hpp)
  cuda::DeviceBuffer<unsigned long long> counts;

  // Room for windows of up to n events (at least one element each, so data() is never null).
  void resize(std::size_t n) {
    const std::size_t n1 = std::max<std::size_t>(1, n);
    keys_in.resize(n1);
    keys_out.resize(n1);
    order_in.resize(n1);
    order_out.resize(n1);
    sorted.resize(n1);
    counts.resize(4);
    temp.resize(std::max<std::size_t>(1, sort_temp_bytes(n1)));
  }

  // The sort of events[0, n) (device memory; n ≤ the size of the last resize) into these buffers.
  SortArgs args(const uint2* events, std::size_t n, const float4* crystals, const BoxParams<float>& box) {
    SortArgs a;
    a.events = events;
    a.n = n;
    a.crystals = crystals;
    a.box = box;
    a.keys_in = keys_in.data();
    a.keys_out = keys_out.data();
    a.order_in = order_in.data();
    a.order_out = order_out.data();
    a.sorted = sorted.data();
    a.counts = counts.data();
    a.temp = temp.data();
    a.temp_bytes = temp.size();
    return a;
  }

  // The label counts of the last sort (skip, x, y, z); waits for `stream`.
  std::array<std::size_t, 4> label_counts(cudaStream_t stream) const {
    std::array<unsigned long long, 4> c{};
    counts.download_async(c.data(), 4, stream);
    TOMO_CUDA_CHECK(cudaStreamSynchronize(stream));
    return {static_cast<std::size_t>(c[0]), static_cast<std::size_t>(c[1]), static_cast<std::size_t>(c[2]),
            static_cast<std::size_t>(c[3])};
  }

  // label_and_sort of events[0, n), then its label counts.
  std::array<std::size_t, 4> sort(const uint2* events, std::size_t n, const float4* crystals, const BoxParams<float>& box,
                                  cudaStream_t stream) {
    label_and_sort(args(events, n, crystals, box), stream);
    return label_counts(stream);
  }
};

}  // namespace tomo::safir::cuda_impl
