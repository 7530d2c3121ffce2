// DeviceBuffer<T>: a move-only owner of cudaMalloc'ed memory holding size() elements of T,
// with bounds-checked host<->device copies (sync, or async on a stream).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/core/check.hpp"

namespace tomo::cuda {

template <class T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "DeviceBuffer holds trivially copyable types only");

 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { resize(n); }
  explicit DeviceBuffer(std::span<const T> host) {
    resize(host.size());
    upload(host);
  }
  ~DeviceBuffer() { free_memory(); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      free_memory();
      ptr_ = std::exchange(o.ptr_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }

  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }
  T* data() noexcept { return ptr_; }
  const T* data() const noexcept { return ptr_; }

  // Reallocates when n differs from size(); the contents are then undefined (not preserved).
  void resize(std::size_t n) {
    if (n == size_) return;
    free_memory();
    if (n == 0) return;
    void* p = nullptr;
    TOMO_CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
    ptr_ = static_cast<T*>(p);
    size_ = n;
  }
  void clear() noexcept { free_memory(); }

  // Host -> device: n elements into [offset, offset + n).
  void upload(const T* src, std::size_t n, std::size_t offset = 0) {
    check_range(offset, n, "upload");
    if (n) {
      TOMO_CUDA_CHECK(cudaMemcpy(ptr_ + offset, src, n * sizeof(T), cudaMemcpyHostToDevice));
      // From pageable memory cudaMemcpy may return once the data is staged, before the DMA to
      // the device has finished; kernels on non-blocking streams do not wait for the default
      // stream, so the upload is waited for here.
      TOMO_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    }
  }
  void upload(std::span<const T> src, std::size_t offset = 0) { upload(src.data(), src.size(), offset); }
  void upload_async(const T* src, std::size_t n, cudaStream_t stream, std::size_t offset = 0) {
    check_range(offset, n, "upload_async");
    if (n) TOMO_CUDA_CHECK(cudaMemcpyAsync(ptr_ + offset, src, n * sizeof(T), cudaMemcpyHostToDevice, stream));
  }

  // Device -> host: [offset, offset + n) into dst; download(dst) copies the whole buffer.
  void download(T* dst, std::size_t n, std::size_t offset = 0) const {
    check_range(offset, n, "download");
    if (n) TOMO_CUDA_CHECK(cudaMemcpy(dst, ptr_ + offset, n * sizeof(T), cudaMemcpyDeviceToHost));
  }
  void download(T* dst) const { download(dst, size_); }
  void download(std::span<T> dst, std::size_t offset = 0) const { download(dst.data(), dst.size(), offset); }
  void download_async(T* dst, std::size_t n, cudaStream_t stream, std::size_t offset = 0) const {
    check_range(offset, n, "download_async");
    if (n) TOMO_CUDA_CHECK(cudaMemcpyAsync(dst, ptr_ + offset, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
  }
  std::vector<T> to_host() const {
    std::vector<T> out(size_);
    download(out.data());
    return out;
  }

  // Device -> device, whole buffers of equal size.
  void copy_from(const DeviceBuffer& src, cudaStream_t stream = nullptr) {
    if (src.size() != size_)
      throw tomo::Error(str_cat("DeviceBuffer::copy_from: size mismatch (", src.size(), " into ", size_, ")"));
    if (size_) TOMO_CUDA_CHECK(cudaMemcpyAsync(ptr_, src.ptr_, bytes(), cudaMemcpyDeviceToDevice, stream));
  }

  // Byte-wise fill, ordered on `stream` (the legacy default stream when null).
  void memset(int byte_value, cudaStream_t stream = nullptr) {
    if (size_) TOMO_CUDA_CHECK(cudaMemsetAsync(ptr_, byte_value, bytes(), stream));
  }
  void fill_zero(cudaStream_t stream = nullptr) { memset(0, stream); }

 private:
  void check_range(std::size_t offset, std::size_t n, const char* what) const {
    if (offset > size_ || n > size_ - offset)
      throw tomo::Error(str_cat("DeviceBuffer::", what, ": elements [", offset, ", ", offset + n,
                                ") outside a buffer of ", size_));
  }
  void free_memory() noexcept {
    if (ptr_) TOMO_CUDA_LOG(cudaFree(ptr_));
    ptr_ = nullptr;
    size_ = 0;
  }

  T* ptr_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace tomo::cuda
