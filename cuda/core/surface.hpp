// SurfaceObject: move-only RAII cudaSurfaceObject_t over a cudaArray created (or registered from GL)
// with surface load/store, for surf2Dwrite / surf2DLayeredwrite / surf3Dwrite in kernels.
#pragma once
#include <cuda_runtime.h>

#include "cuda/core/cuda_array.hpp"

namespace tomo::cuda {

class SurfaceObject {
 public:
  SurfaceObject() = default;
  explicit SurfaceObject(cudaArray_t array);
  explicit SurfaceObject(const CudaArray& array) : SurfaceObject(array.get()) {}
  ~SurfaceObject();
  SurfaceObject(const SurfaceObject&) = delete;
  SurfaceObject& operator=(const SurfaceObject&) = delete;
  SurfaceObject(SurfaceObject&& o) noexcept;
  SurfaceObject& operator=(SurfaceObject&& o) noexcept;

  cudaSurfaceObject_t get() const noexcept { return surf_; }
  operator cudaSurfaceObject_t() const noexcept { return surf_; }
  explicit operator bool() const noexcept { return surf_ != 0; }

 private:
  cudaSurfaceObject_t surf_ = 0;
};

}  // namespace tomo::cuda
