// A 2D float32 CUDA array with a point-sampled texture object over it (move-only RAII): the ρ image
// read through the texture cache by the strip kernels (seed 000 §4.2, last paragraph).
#pragma once
#include <cuda_runtime_api.h>

#include <utility>

#include "cuda/core/check.hpp"

namespace tomo::strip::cuda_impl {

class Texture2D {
 public:
  Texture2D() = default;
  Texture2D(int width, int height) : width_(width), height_(height) {
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    TOMO_CUDA_CHECK(cudaMallocArray(&array_, &desc, width, height));
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array_;
    cudaTextureDesc tex{};
    tex.addressMode[0] = tex.addressMode[1] = cudaAddressModeClamp;
    tex.filterMode = cudaFilterModePoint;
    tex.readMode = cudaReadModeElementType;
    tex.normalizedCoords = 0;
    try {
      TOMO_CUDA_CHECK(cudaCreateTextureObject(&tex_, &res, &tex, nullptr));
    } catch (...) {
      TOMO_CUDA_LOG(cudaFreeArray(array_));
      throw;
    }
  }
  ~Texture2D() { release(); }
  Texture2D(const Texture2D&) = delete;
  Texture2D& operator=(const Texture2D&) = delete;
  Texture2D(Texture2D&& o) noexcept { *this = std::move(o); }
  Texture2D& operator=(Texture2D&& o) noexcept {
    if (this != &o) {
      release();
      array_ = std::exchange(o.array_, nullptr);
      tex_ = std::exchange(o.tex_, 0);
      width_ = o.width_;
      height_ = o.height_;
    }
    return *this;
  }

  // Copies width × height floats (row-major, rows of `width`) from device memory into the array.
  void copy_from_device(const float* src, cudaStream_t stream) {
    TOMO_CUDA_CHECK(cudaMemcpy2DToArrayAsync(array_, 0, 0, src, sizeof(float) * width_, sizeof(float) * width_,
                                             height_, cudaMemcpyDeviceToDevice, stream));
  }
  cudaTextureObject_t get() const noexcept { return tex_; }

 private:
  void release() noexcept {
    if (tex_) TOMO_CUDA_LOG(cudaDestroyTextureObject(tex_));
    if (array_) TOMO_CUDA_LOG(cudaFreeArray(array_));
    tex_ = 0;
    array_ = nullptr;
  }
  cudaArray_t array_ = nullptr;
  cudaTextureObject_t tex_ = 0;
  int width_ = 0, height_ = 0;
};

}  // namespace tomo::strip::cuda_impl
