// CudaArray and whole-array copies (see cuda_array.hpp).
#include "cuda/core/cuda_array.hpp"

#include <utility>

#include "cuda/core/check.hpp"

namespace tomo::cuda {

std::size_t element_bytes(const cudaChannelFormatDesc& d) {
  const int bits = d.x + d.y + d.z + d.w;
  if (bits <= 0 || bits % 8) throw tomo::Error(str_cat("channel format with ", bits, " bits per element"));
  return static_cast<std::size_t>(bits / 8);
}

void copy_to_array(cudaArray_t dst, const ArrayExtent& e, std::size_t elem, const void* src, cudaMemcpyKind kind,
                   cudaStream_t stream) {
  const std::size_t row = e.width * elem;
  if (e.depth == 0) {
    TOMO_CUDA_CHECK(cudaMemcpy2DToArrayAsync(dst, 0, 0, src, row, row, e.height ? e.height : 1, kind, stream));
    return;
  }
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(const_cast<void*>(src), row, e.width, e.height);
  p.dstArray = dst;
  p.extent = make_cudaExtent(e.width, e.height, e.depth);
  p.kind = kind;
  TOMO_CUDA_CHECK(cudaMemcpy3DAsync(&p, stream));
}

void copy_from_array(void* dst, cudaArray_t src, const ArrayExtent& e, std::size_t elem, cudaMemcpyKind kind,
                     cudaStream_t stream) {
  const std::size_t row = e.width * elem;
  if (e.depth == 0) {
    TOMO_CUDA_CHECK(cudaMemcpy2DFromArrayAsync(dst, row, src, 0, 0, row, e.height ? e.height : 1, kind, stream));
    return;
  }
  cudaMemcpy3DParms p{};
  p.srcArray = src;
  p.dstPtr = make_cudaPitchedPtr(dst, row, e.width, e.height);
  p.extent = make_cudaExtent(e.width, e.height, e.depth);
  p.kind = kind;
  TOMO_CUDA_CHECK(cudaMemcpy3DAsync(&p, stream));
}

CudaArray::CudaArray(const cudaChannelFormatDesc& desc, ArrayExtent extent, unsigned flags)
    : desc_(desc), extent_(extent), flags_(flags) {
  (void)element_bytes();  // validates the format
  if (extent.width == 0) throw tomo::Error("CudaArray: width must be > 0");
  if (extent.depth > 0 && extent.height == 0 && !(flags & cudaArrayLayered))
    throw tomo::Error("CudaArray: a 3D array needs height > 0");
  if (extent.depth == 0 && !(flags & cudaArrayLayered)) {
    TOMO_CUDA_CHECK(cudaMallocArray(&array_, &desc_, extent.width, extent.height, flags));
  } else {
    if (extent.depth == 0) throw tomo::Error("CudaArray: a layered array needs depth (layers) > 0");
    TOMO_CUDA_CHECK(cudaMalloc3DArray(&array_, &desc_, make_cudaExtent(extent.width, extent.height, extent.depth),
                                      flags));
  }
}

CudaArray::~CudaArray() { release(); }
CudaArray::CudaArray(CudaArray&& o) noexcept
    : array_(std::exchange(o.array_, nullptr)), desc_(o.desc_), extent_(o.extent_), flags_(o.flags_) {}
CudaArray& CudaArray::operator=(CudaArray&& o) noexcept {
  if (this != &o) {
    release();
    array_ = std::exchange(o.array_, nullptr);
    desc_ = o.desc_;
    extent_ = o.extent_;
    flags_ = o.flags_;
  }
  return *this;
}
void CudaArray::release() noexcept {
  if (array_) TOMO_CUDA_LOG(cudaFreeArray(array_));
  array_ = nullptr;
}

// Host copies on the null stream are complete on return (pinned host memory would make them async).
void CudaArray::copy_from_host(const void* src, cudaStream_t s) {
  copy_to_array(array_, extent_, element_bytes(), src, cudaMemcpyHostToDevice, s);
  if (!s) TOMO_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}
void CudaArray::copy_to_host(void* dst, cudaStream_t s) const {
  copy_from_array(dst, array_, extent_, element_bytes(), cudaMemcpyDeviceToHost, s);
  if (!s) TOMO_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}
void CudaArray::copy_from_device(const void* src, cudaStream_t s) {
  copy_to_array(array_, extent_, element_bytes(), src, cudaMemcpyDeviceToDevice, s);
}
void CudaArray::copy_to_device(void* dst, cudaStream_t s) const {
  copy_from_array(dst, array_, extent_, element_bytes(), cudaMemcpyDeviceToDevice, s);
}

}  // namespace tomo::cuda
