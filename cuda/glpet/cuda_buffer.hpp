// The glpet cuda backend's vectors (x, y, ỹ, b, s): plain device memory, or GL buffer objects
// (from core/gl_buffer_hooks.hpp) registered with CUDA through core/interop and mapped only
// while an operator call runs, so GL (the viewer) reads the same memory between calls.
#pragma once
#include <cuda_runtime_api.h>

#include <initializer_list>
#include <memory>
#include <optional>
#include <vector>

#include "cuda/core/device_buffer.hpp"
#include "cuda/core/interop.hpp"
#include "compute/glpet/projector.hpp"

namespace tomo::glpet::cuda_impl {

class CudaBuffer final : public BackendBuffer {
 public:
  // n floats of plain device memory, zero.
  CudaBuffer(std::size_t n, cudaStream_t stream);
  // n > 0 floats in a new GL buffer (zero) registered with CUDA; owns the GL name. Throws
  // UnavailableError when there is no GL engine or CUDA refuses the buffer (e.g. the GL
  // context is not on this CUDA device); nothing is left behind then.
  static std::unique_ptr<CudaBuffer> gl_interop(std::size_t n, cudaStream_t stream);
  ~CudaBuffer() override;
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;

  std::size_t size() const override { return n_; }
  void upload(std::span<const float> host) override;
  void download(std::span<float> host) const override;
  void zero() override;
  unsigned gl_name() const override { return gl_; }

  // Device pointer: always for plain memory; for a GL buffer only while mapped (else throws).
  float* data() const;
  bool mapped() const { return mapping_.has_value(); }
  // Needs the GL context current (MapScope makes it so). Plain buffers: nothing to do.
  void map();
  void unmap();

 private:
  CudaBuffer(std::size_t n, cudaStream_t stream, unsigned gl);
  std::size_t n_;
  cudaStream_t stream_;
  mutable cuda::DeviceBuffer<float> plain_;
  unsigned gl_ = 0;
  std::optional<cuda::GlBufferResource> resource_;
  std::optional<cuda::MappedBuffer> mapping_;
};

// Maps the GL buffers among `buffers` (each once; nullptr and plain buffers are skipped, and
// so are buffers an outer scope mapped) with the GL context made current first, and unmaps
// them when the scope ends: CUDA work queued before then is finished before later GL commands.
class MapScope {
 public:
  explicit MapScope(std::initializer_list<const CudaBuffer*> buffers);
  ~MapScope();
  MapScope(const MapScope&) = delete;
  MapScope& operator=(const MapScope&) = delete;

 private:
  std::vector<CudaBuffer*> mapped_;
};

}  // namespace tomo::glpet::cuda_impl
