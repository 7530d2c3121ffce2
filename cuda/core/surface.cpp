// SurfaceObject (see surface.hpp).
#include "cuda/core/surface.hpp"

#include <utility>

#include "cuda/core/check.hpp"

namespace tomo::cuda {

SurfaceObject::SurfaceObject(cudaArray_t array) {
  if (!array) throw tomo::Error("SurfaceObject: null cudaArray");
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  TOMO_CUDA_CHECK(cudaCreateSurfaceObject(&surf_, &res));
}
SurfaceObject::~SurfaceObject() {
  if (surf_) TOMO_CUDA_LOG(cudaDestroySurfaceObject(surf_));
}
SurfaceObject::SurfaceObject(SurfaceObject&& o) noexcept : surf_(std::exchange(o.surf_, 0)) {}
SurfaceObject& SurfaceObject::operator=(SurfaceObject&& o) noexcept {
  if (this != &o) {
    if (surf_) TOMO_CUDA_LOG(cudaDestroySurfaceObject(surf_));
    surf_ = std::exchange(o.surf_, 0);
  }
  return *this;
}

}  // namespace tomo::cuda
