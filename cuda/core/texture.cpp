// TextureObject (see texture.hpp).
#include "cuda/core/texture.hpp"

#include <utility>

#include "cuda/core/check.hpp"

namespace tomo::cuda {

TextureObject TextureObject::create(const cudaResourceDesc& res, const TextureOptions& o) {
  cudaTextureDesc td{};
  for (int i = 0; i < 3; ++i) td.addressMode[i] = o.address[i];
  td.filterMode = o.filter;
  td.readMode = o.read_mode;
  td.normalizedCoords = o.normalized_coords ? 1 : 0;
  for (int i = 0; i < 4; ++i) td.borderColor[i] = o.border_color[i];
  TextureObject t;
  TOMO_CUDA_CHECK(cudaCreateTextureObject(&t.tex_, &res, &td, nullptr));
  return t;
}

TextureObject::TextureObject(cudaArray_t array, const TextureOptions& options) {
  if (!array) throw tomo::Error("TextureObject: null cudaArray");
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  *this = create(res, options);
}

TextureObject TextureObject::linear(const void* ptr, std::size_t bytes, const cudaChannelFormatDesc& desc,
                                    const TextureOptions& options) {
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = const_cast<void*>(ptr);
  res.res.linear.desc = desc;
  res.res.linear.sizeInBytes = bytes;
  return create(res, options);
}

TextureObject TextureObject::pitch2d(const void* ptr, const cudaChannelFormatDesc& desc, std::size_t width,
                                     std::size_t height, std::size_t pitch_bytes, const TextureOptions& options) {
  cudaResourceDesc res{};
  res.resType = cudaResourceTypePitch2D;
  res.res.pitch2D.devPtr = const_cast<void*>(ptr);
  res.res.pitch2D.desc = desc;
  res.res.pitch2D.width = width;
  res.res.pitch2D.height = height;
  res.res.pitch2D.pitchInBytes = pitch_bytes;
  return create(res, options);
}

TextureObject::~TextureObject() {
  if (tex_) TOMO_CUDA_LOG(cudaDestroyTextureObject(tex_));
}
TextureObject::TextureObject(TextureObject&& o) noexcept : tex_(std::exchange(o.tex_, 0)) {}
TextureObject& TextureObject::operator=(TextureObject&& o) noexcept {
  if (this != &o) {
    if (tex_) TOMO_CUDA_LOG(cudaDestroyTextureObject(tex_));
    tex_ = std::exchange(o.tex_, 0);
  }
  return *this;
}

}  // namespace tomo::cuda
