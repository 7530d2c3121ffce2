// HostStaging (see host_staging.hpp).
#include "cuda/core/host_staging.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "cuda/core/check.hpp"

namespace tomo::cuda {

void parallel_copy(void* dst, const void* src, std::size_t bytes) {
  constexpr std::size_t kPerThread = std::size_t(1) << 20;
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const auto parts =
      static_cast<int>(std::min<std::size_t>({std::size_t(16), hw, (bytes + kPerThread - 1) / kPerThread}));
  if (parts <= 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const std::size_t step = (bytes / parts + 4095) / 4096 * 4096;
  // OpenMP's team persists between calls: a staged stack is some twenty slabs, and starting
  // fresh threads for each cost as much as the copies on the GPU machine (docs/perf/fdk.md).
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int p = 0; p < parts; ++p) {
    const std::size_t a = std::min(bytes, p * step), b = std::min(bytes, (p + 1) * step);
    if (a < b) std::memcpy(static_cast<char*>(dst) + a, static_cast<const char*>(src) + a, b - a);
  }
}

HostStaging::~HostStaging() {
  try {
    wait_idle();
  } catch (...) {
  }
}

void HostStaging::set_slab(std::size_t slab) {
  if (slab == slab_) return;
  wait_idle();
  slab_ = slab;
  for (auto& b : buf_) b.clear();
}

void HostStaging::wait_idle() {
  for (int s = 0; s < 2; ++s)
    if (used_[s]) {
      free_[s].synchronize();
      used_[s] = false;
    }
}

float* HostStaging::acquire(int s) {
  if (slab_ == 0) throw std::invalid_argument("host staging: no slab size set");
  if (buf_[s].size() != slab_) buf_[s].resize(slab_);
  if (used_[s]) {
    const auto t0 = std::chrono::steady_clock::now();
    free_[s].synchronize();
    wait_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    used_[s] = false;
  }
  return buf_[s].data();
}

void HostStaging::released(int s, cudaStream_t stream) {
  free_[s].record(stream);
  used_[s] = true;
}

void HostStaging::upload(const float* src, float* dst, std::size_t n, cudaStream_t stream) {
  for (std::size_t at = 0, k = 0; at < n; at += slab_, ++k) {
    const int s = static_cast<int>(k % 2);
    const std::size_t len = std::min(slab_, n - at);
    float* b = acquire(s);
    parallel_copy(b, src + at, len * sizeof(float));
    TOMO_CUDA_CHECK(cudaMemcpyAsync(dst + at, b, len * sizeof(float), cudaMemcpyHostToDevice, stream));
    released(s, stream);
  }
}

void HostStaging::download(const float* src, float* dst, std::size_t n, cudaStream_t stream,
                           const std::function<void(std::size_t, std::size_t)>& ready) {
  if (n == 0) return;
  // Slab i + 1's copy from the device runs while host threads copy slab i out of the other buffer.
  const auto queue = [&](std::size_t at, int s) {
    const std::size_t len = std::min(slab_, n - at);
    if (ready) ready(at, at + len);
    float* b = acquire(s);
    TOMO_CUDA_CHECK(cudaMemcpyAsync(b, src + at, len * sizeof(float), cudaMemcpyDeviceToHost, stream));
    released(s, stream);
  };
  queue(0, 0);
  for (std::size_t at = 0, k = 0; at < n; at += slab_, ++k) {
    const int s = static_cast<int>(k % 2);
    if (at + slab_ < n) queue(at + slab_, s ^ 1);
    free_[s].synchronize();
    parallel_copy(dst + at, buf_[s].data(), std::min(slab_, n - at) * sizeof(float));
  }
}

}  // namespace tomo::cuda
