// PinnedBuffer<T>: move-only page-locked host memory (cudaMallocHost) for fast and async copies.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

#include "cuda/core/check.hpp"

namespace tomo::cuda {

template <class T>
class PinnedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "PinnedBuffer holds trivially copyable types only");

 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t n) { resize(n); }
  ~PinnedBuffer() { free_memory(); }

  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      free_memory();
      ptr_ = std::exchange(o.ptr_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }

  // Reallocates when n differs from size(); contents are not preserved.
  void resize(std::size_t n) {
    if (n == size_) return;
    free_memory();
    if (n == 0) return;
    void* p = nullptr;
    TOMO_CUDA_CHECK(cudaMallocHost(&p, n * sizeof(T)));
    ptr_ = static_cast<T*>(p);
    size_ = n;
  }
  void clear() noexcept { free_memory(); }

  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }
  T* data() noexcept { return ptr_; }
  const T* data() const noexcept { return ptr_; }
  std::span<T> span() noexcept { return {ptr_, size_}; }
  std::span<const T> span() const noexcept { return {ptr_, size_}; }
  T& operator[](std::size_t i) noexcept { return ptr_[i]; }
  const T& operator[](std::size_t i) const noexcept { return ptr_[i]; }
  T* begin() noexcept { return ptr_; }
  T* end() noexcept { return ptr_ + size_; }
  const T* begin() const noexcept { return ptr_; }
  const T* end() const noexcept { return ptr_ + size_; }

 private:
  void free_memory() noexcept {
    if (ptr_) TOMO_CUDA_LOG(cudaFreeHost(ptr_));
    ptr_ = nullptr;
    size_ = 0;
  }

  T* ptr_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace tomo::cuda
