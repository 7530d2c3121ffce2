// Error checking for CUDA runtime calls: TOMO_CUDA_CHECK throws tomo::cuda::CudaError (a tomo::Error)
// naming file:line, the call text and the CUDA error; TOMO_CUDA_LOG only logs (for destructors).
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::cuda {

// A failed CUDA runtime call; code() keeps the cudaError_t for callers that branch on it.
class CudaError : public tomo::Error {
 public:
  CudaError(cudaError_t code, const std::string& what) : tomo::Error(what), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

namespace detail {

inline std::string cuda_error_text(cudaError_t err, const char* call, const char* file, int line) {
  return str_cat(file, ":", line, ": TOMO_CUDA_CHECK failed: ", call, " returned ", cudaGetErrorName(err),
                 " (", cudaGetErrorString(err), ")");
}

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw CudaError(err, cuda_error_text(err, call, file, line));
}

inline void log_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  // At process exit the runtime may already be gone; freeing then is harmless and not worth a line.
  if (err == cudaErrorCudartUnloading) return;
  log_error(cuda_error_text(err, call, file, line));
}

}  // namespace detail
}  // namespace tomo::cuda

// Throws tomo::cuda::CudaError when `call` does not return cudaSuccess.
#define TOMO_CUDA_CHECK(call)                                                           \
  do {                                                                                  \
    const cudaError_t tomo_cuda_err_ = (call);                                          \
    if (tomo_cuda_err_ != cudaSuccess) {                                                \
      (void)cudaGetLastError(); /* clear a non-sticky error so later calls start clean */ \
      ::tomo::cuda::detail::throw_cuda_error(tomo_cuda_err_, #call, __FILE__, __LINE__); \
    }                                                                                   \
  } while (0)

// After a kernel launch: throws on a launch-configuration error (cudaGetLastError).
#define TOMO_CUDA_CHECK_LAST() TOMO_CUDA_CHECK(cudaGetLastError())

// Log-only variant for destructors and other noexcept paths.
#define TOMO_CUDA_LOG(call)                                                             \
  do {                                                                                  \
    const cudaError_t tomo_cuda_err_ = (call);                                          \
    if (tomo_cuda_err_ != cudaSuccess) {                                                \
      (void)cudaGetLastError();                                                         \
      ::tomo::cuda::detail::log_cuda_error(tomo_cuda_err_, #call, __FILE__, __LINE__);  \
    }                                                                                   \
  } while (0)
