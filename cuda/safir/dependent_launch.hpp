// Programmatic dependent launch (sm_90) for the chain an ML-EM or OSEM step queues per subset:
// tiled forward → tiled back → update (→ the next subset's forward). Launched this way, a kernel's
// blocks may start while the previous kernel's last blocks still run (an OSEM subset's pass is
// one wave whose tail leaves most SMs idle) and do the work that reads nothing of it; each kernel
// waits for the previous grid (and its memory) before it reads or writes what that grid touches.
// Every block of such a kernel must pass the wait: a grid that ends without it could finish
// before its predecessor, and the next kernel's wait would not cover that predecessor. For .cu
// files only.
#pragma once
#include <cuda_runtime_api.h>

#include "cuda/core/check.hpp"

namespace tomo::safir::cuda_impl {

// The previous kernel of the stream has finished and its writes are visible.
__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// The next kernel of the stream may be launched once every block of this one has called this.
__device__ __forceinline__ void allow_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// kernel<<<grid, block, shared, stream>>>(args...) as a programmatic dependent of the stream's
// previous kernel (on a GPU without it, an ordinary launch).
template <class... Params, class... Args>
void launch_dependent(void (*kernel)(Params...), int grid, int block, int shared, cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = static_cast<std::size_t>(shared);
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  TOMO_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

}  // namespace tomo::safir::cuda_impl
