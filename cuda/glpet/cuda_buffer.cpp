// CudaBuffer and MapScope (cuda_buffer.hpp).
#include "cuda/glpet/cuda_buffer.hpp"

#include <algorithm>
#include <utility>

#include "cuda/core/check.hpp"
#include "compute/core/error.hpp"
#include "compute/core/gl_buffer_hooks.hpp"
#include "compute/core/log.hpp"

namespace tomo::glpet::cuda_impl {

namespace {
const GlBufferHooks& hooks() {
  const GlBufferHooks* h = gl_buffer_hooks();
  if (!h) throw UnavailableError("glpet cuda: no GL engine in this program");
  return *h;
}
}  // namespace

CudaBuffer::CudaBuffer(std::size_t n, cudaStream_t stream) : n_(n), stream_(stream), plain_(n) {
  plain_.fill_zero(stream_);
  TOMO_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

CudaBuffer::CudaBuffer(std::size_t n, cudaStream_t stream, unsigned gl) : n_(n), stream_(stream), gl_(gl) {}

std::unique_ptr<CudaBuffer> CudaBuffer::gl_interop(std::size_t n, cudaStream_t stream) {
  if (n == 0) throw UnavailableError("glpet cuda: an empty vector cannot be a GL buffer");
  const GlBufferHooks& h = hooks();
  const Availability a = h.availability();
  if (!a.ok) throw UnavailableError("no GL context (" + a.why + ")");
  const std::size_t bytes = n * sizeof(float);
  // The constructor takes the name at once, so the destructor deletes it whatever fails next.
  std::unique_ptr<CudaBuffer> b(new CudaBuffer(n, stream, h.create(bytes)));
  b->resource_.emplace(b->gl_, bytes, cuda::MapAccess::ReadWrite, cuda::InteropMode::RequireZeroCopy);
  return b;
}

CudaBuffer::~CudaBuffer() {
  if (!gl_) return;
  const GlBufferHooks* h = gl_buffer_hooks();
  try {
    if (h) h->make_current();  // unmap and unregister need the GL context
  } catch (const std::exception& e) {
    log_debug("glpet cuda: GL buffer ", gl_, " outlived its GL context: ", e.what());
  }
  if (mapping_) {
    try {
      unmap();
    } catch (const std::exception& e) {
      log_error("glpet cuda: unmapping GL buffer ", gl_, ": ", e.what());
    }
  }
  resource_.reset();
  if (h) h->destroy(gl_);
}

float* CudaBuffer::data() const {
  if (!gl_) return plain_.data();
  if (!mapping_) throw Error(str_cat("glpet cuda: GL buffer ", gl_, " used by CUDA while not mapped"));
  return mapping_->as<float>();
}

void CudaBuffer::map() {
  if (!gl_ || mapping_) return;
  mapping_.emplace(*resource_, stream_);
}

void CudaBuffer::unmap() {
  if (!mapping_) return;
  cuda::MappedBuffer m = std::move(*mapping_);
  mapping_.reset();
  m.unmap();
}

void CudaBuffer::upload(std::span<const float> host) {
  if (host.size() != n_) throw Error(str_cat("glpet cuda: upload of ", host.size(), " values into a buffer of ", n_));
  MapScope scope{this};
  TOMO_CUDA_CHECK(cudaMemcpyAsync(data(), host.data(), n_ * sizeof(float), cudaMemcpyHostToDevice, stream_));
  TOMO_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CudaBuffer::zero() {
  MapScope scope{this};
  TOMO_CUDA_CHECK(cudaMemsetAsync(data(), 0, n_ * sizeof(float), stream_));
}

void CudaBuffer::download(std::span<float> host) const {
  if (host.size() != n_) throw Error(str_cat("glpet cuda: download of ", n_, " values into ", host.size()));
  MapScope scope{this};
  TOMO_CUDA_CHECK(cudaMemcpyAsync(host.data(), data(), n_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
  TOMO_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

MapScope::MapScope(std::initializer_list<const CudaBuffer*> buffers) {
  bool current = false;
  try {
    for (const CudaBuffer* cb : buffers) {
      auto* b = const_cast<CudaBuffer*>(cb);  // mapping is not a change of the vector's value
      if (!b || !b->gl_name() || b->mapped()) continue;
      if (!current) {
        hooks().make_current();
        current = true;
      }
      b->map();
      mapped_.push_back(b);
    }
  } catch (...) {
    for (auto it = mapped_.rbegin(); it != mapped_.rend(); ++it) {
      try {
        (*it)->unmap();
      } catch (...) {
      }
    }
    throw;
  }
}

MapScope::~MapScope() {
  for (auto it = mapped_.rbegin(); it != mapped_.rend(); ++it) {
    try {
      (*it)->unmap();
    } catch (const std::exception& e) {
      log_error("glpet cuda: unmapping GL buffer ", (*it)->gl_name(), ": ", e.what());
    }
  }
}

}  // namespace tomo::glpet::cuda_impl
