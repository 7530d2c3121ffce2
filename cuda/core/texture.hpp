// TextureObject: move-only RAII cudaTextureObject_t over a cudaArray (owned or mapped from GL),
// linear device memory, or pitched 2D device memory, with filter/address/read modes.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/core/cuda_array.hpp"

namespace tomo::cuda {

struct TextureOptions {
  cudaTextureFilterMode filter = cudaFilterModePoint;
  cudaTextureAddressMode address[3] = {cudaAddressModeClamp, cudaAddressModeClamp, cudaAddressModeClamp};
  cudaTextureReadMode read_mode = cudaReadModeElementType;
  bool normalized_coords = false;
  float border_color[4] = {0.f, 0.f, 0.f, 0.f};  // for cudaAddressModeBorder

  static TextureOptions point_clamp() { return {}; }
  // Hardware bilinear/trilinear filtering: weights have 8 fractional bits (CUDA programming guide,
  // "Linear filtering"), so results differ from exact interpolation by up to 2^-8 of a neighbour difference.
  static TextureOptions linear_clamp() {
    TextureOptions o;
    o.filter = cudaFilterModeLinear;
    return o;
  }
  TextureOptions& with_address(cudaTextureAddressMode mode) {
    address[0] = address[1] = address[2] = mode;
    return *this;
  }
};

class TextureObject {
 public:
  TextureObject() = default;
  TextureObject(cudaArray_t array, const TextureOptions& options = {});
  explicit TextureObject(const CudaArray& array, const TextureOptions& options = {})
      : TextureObject(array.get(), options) {}

  // 1D fetches (tex1Dfetch) from linear device memory of `bytes` bytes; point sampling only.
  static TextureObject linear(const void* device_ptr, std::size_t bytes, const cudaChannelFormatDesc& desc,
                              const TextureOptions& options = {});
  // 2D sampling of pitched device memory (width x height elements, pitch in bytes).
  static TextureObject pitch2d(const void* device_ptr, const cudaChannelFormatDesc& desc, std::size_t width,
                               std::size_t height, std::size_t pitch_bytes, const TextureOptions& options = {});

  ~TextureObject();
  TextureObject(const TextureObject&) = delete;
  TextureObject& operator=(const TextureObject&) = delete;
  TextureObject(TextureObject&& o) noexcept;
  TextureObject& operator=(TextureObject&& o) noexcept;

  cudaTextureObject_t get() const noexcept { return tex_; }
  operator cudaTextureObject_t() const noexcept { return tex_; }
  explicit operator bool() const noexcept { return tex_ != 0; }

 private:
  static TextureObject create(const cudaResourceDesc& res, const TextureOptions& options);

  cudaTextureObject_t tex_ = 0;
};

}  // namespace tomo::cuda
