// CudaArray: move-only owner of a 1D/2D, 2D-layered or 3D cudaArray (the storage behind textures
// and surfaces), plus whole-array copies to/from tightly packed host or linear device memory.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

namespace tomo::cuda {

// Extent in elements. height == 0: 1D; depth == 0: 2D; depth > 0: 3D, or layers when layered.
struct ArrayExtent {
  std::size_t width = 0, height = 0, depth = 0;
  std::size_t elements() const { return width * (height ? height : 1) * (depth ? depth : 1); }
};

// Bytes of one element of a channel format (sum of the channel bit widths / 8).
std::size_t element_bytes(const cudaChannelFormatDesc& desc);

// Whole-array copies for any cudaArray_t (owned or mapped from GL); `src`/`dst` are tightly
// packed, x fastest, then y, then z/layer. Ordered on `stream`.
void copy_to_array(cudaArray_t dst, const ArrayExtent& extent, std::size_t elem_bytes, const void* src,
                   cudaMemcpyKind kind, cudaStream_t stream = nullptr);
void copy_from_array(void* dst, cudaArray_t src, const ArrayExtent& extent, std::size_t elem_bytes,
                     cudaMemcpyKind kind, cudaStream_t stream = nullptr);

class CudaArray {
 public:
  CudaArray() = default;
  // flags: cudaArrayDefault | cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayTextureGather.
  CudaArray(const cudaChannelFormatDesc& desc, ArrayExtent extent, unsigned flags = cudaArrayDefault);
  template <class T>
  static CudaArray of(ArrayExtent extent, unsigned flags = cudaArrayDefault) {
    return CudaArray(cudaCreateChannelDesc<T>(), extent, flags);
  }
  ~CudaArray();
  CudaArray(const CudaArray&) = delete;
  CudaArray& operator=(const CudaArray&) = delete;
  CudaArray(CudaArray&& o) noexcept;
  CudaArray& operator=(CudaArray&& o) noexcept;

  cudaArray_t get() const noexcept { return array_; }
  operator cudaArray_t() const noexcept { return array_; }
  const cudaChannelFormatDesc& desc() const noexcept { return desc_; }
  const ArrayExtent& extent() const noexcept { return extent_; }
  unsigned flags() const noexcept { return flags_; }
  bool layered() const noexcept { return (flags_ & cudaArrayLayered) != 0; }
  std::size_t element_bytes() const { return cuda::element_bytes(desc_); }
  std::size_t bytes() const { return extent_.elements() * element_bytes(); }

  // Whole-array copies; the other side holds bytes() tightly packed bytes. Host copies with a
  // null stream are complete on return; with a stream, synchronize it before using the data.
  void copy_from_host(const void* src, cudaStream_t stream = nullptr);
  void copy_to_host(void* dst, cudaStream_t stream = nullptr) const;
  void copy_from_device(const void* src, cudaStream_t stream = nullptr);
  void copy_to_device(void* dst, cudaStream_t stream = nullptr) const;

 private:
  void release() noexcept;

  cudaArray_t array_ = nullptr;
  cudaChannelFormatDesc desc_{};
  ArrayExtent extent_{};
  unsigned flags_ = 0;
};

}  // namespace tomo::cuda
