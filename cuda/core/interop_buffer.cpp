// GlBufferResource / MappedBuffer: zero-copy mapping of a GL buffer into CUDA, or the copy path
// (GL -> pinned -> device at map, device -> pinned -> GL at unmap) when registration is refused.
#include <cuda_gl_interop.h>

#include <utility>

#include "cuda/core/check.hpp"
#include "cuda/core/interop_detail.hpp"

namespace tomo::cuda {
namespace detail {
BufferState::~BufferState() { unregister_logged(resource, mapped, str_cat("GL buffer ", gl)); }
}  // namespace detail

GlBufferResource::GlBufferResource(unsigned gl_buffer, std::size_t bytes, MapAccess access, InteropMode mode,
                                   HostTransfer fallback)
    : s_(std::make_unique<detail::BufferState>()) {
  auto& s = *s_;
  s.gl = gl_buffer;
  s.bytes = bytes;
  s.access = access;
  s.transfer = std::move(fallback);
  const std::string what = str_cat("GL buffer ", gl_buffer, " (", bytes, " bytes)");
  if (gl_buffer == 0) throw tomo::Error("CUDA-GL interop: GL buffer name 0");
  if (mode == InteropMode::ForceCopy) {
    s.reason = "InteropMode::ForceCopy";
  } else {
    const cudaError_t err = cudaGraphicsGLRegisterBuffer(&s.resource, gl_buffer, detail::register_flags(access));
    if (err != cudaSuccess) {
      s.resource = nullptr;
      s.reason = detail::error_reason(err);
      if (mode == InteropMode::RequireZeroCopy)
        throw UnavailableError(str_cat("CUDA-GL interop: cannot register ", what, " (", s.reason, ")"));
    }
  }
  if (!s.resource) {
    detail::require_transfer(s.transfer, access, what, s.reason);
    if (bytes == 0) throw tomo::Error(str_cat("CUDA-GL interop: the copy path for ", what, " needs its size"));
  }
  detail::log_path_once("buffer", s.resource != nullptr, what, s.reason);
}

GlBufferResource::~GlBufferResource() = default;
GlBufferResource::GlBufferResource(GlBufferResource&&) noexcept = default;
GlBufferResource& GlBufferResource::operator=(GlBufferResource&&) noexcept = default;

bool GlBufferResource::is_zero_copy() const { return s_ && s_->resource; }
const std::string& GlBufferResource::fallback_reason() const { return s_->reason; }
unsigned GlBufferResource::gl_name() const { return s_->gl; }
std::size_t GlBufferResource::bytes() const { return s_->bytes; }
MapAccess GlBufferResource::access() const { return s_->access; }

MappedBuffer::MappedBuffer(GlBufferResource& resource, cudaStream_t stream) : stream_(stream) {
  detail::BufferState* s = resource.s_.get();
  if (!s) throw tomo::Error("MappedBuffer: moved-from GlBufferResource");
  if (s->mapped) throw tomo::Error(str_cat("MappedBuffer: GL buffer ", s->gl, " is already mapped"));
  if (s->resource) {
    TOMO_CUDA_CHECK(cudaGraphicsMapResources(1, &s->resource, stream));
    std::size_t n = 0;
    const cudaError_t err = cudaGraphicsResourceGetMappedPointer(&ptr_, &n, s->resource);
    if (err != cudaSuccess || (s->bytes && n < s->bytes)) {
      const std::string why = err != cudaSuccess ? detail::error_reason(err)
                                                 : str_cat("it has ", n, " bytes, expected ", s->bytes);
      TOMO_CUDA_LOG(cudaGraphicsUnmapResources(1, &s->resource, stream));
      throw tomo::Error(str_cat("MappedBuffer: GL buffer ", s->gl, ": ", why));
    }
    bytes_ = s->bytes ? s->bytes : n;
  } else {
    s->staging.resize(s->bytes);
    s->pinned.resize(s->bytes);
    if (s->access != MapAccess::WriteDiscard) {
      s->transfer.read_from_gl(s->pinned.data(), s->bytes);
      TOMO_CUDA_CHECK(cudaMemcpyAsync(s->staging.data(), s->pinned.data(), s->bytes, cudaMemcpyHostToDevice, stream));
    }
    ptr_ = s->staging.data();
    bytes_ = s->bytes;
  }
  s->mapped = true;
  s_ = s;
}

MappedBuffer::MappedBuffer(MappedBuffer&& o) noexcept
    : s_(std::exchange(o.s_, nullptr)), stream_(o.stream_), ptr_(std::exchange(o.ptr_, nullptr)),
      bytes_(std::exchange(o.bytes_, 0)) {}

MappedBuffer::~MappedBuffer() {
  try {
    unmap();
  } catch (const std::exception& e) {
    log_error("MappedBuffer: unmap failed: ", e.what());
  }
}

void MappedBuffer::unmap() {
  detail::BufferState* s = std::exchange(s_, nullptr);
  ptr_ = nullptr;
  if (!s) return;
  s->mapped = false;
  if (s->resource) {
    TOMO_CUDA_CHECK(cudaGraphicsUnmapResources(1, &s->resource, stream_));
    return;
  }
  // Copy path: like an unmap, all CUDA work on the stream is finished before GL sees the data.
  if (s->access != MapAccess::ReadOnly)
    TOMO_CUDA_CHECK(cudaMemcpyAsync(s->pinned.data(), s->staging.data(), s->bytes, cudaMemcpyDeviceToHost, stream_));
  TOMO_CUDA_CHECK(cudaStreamSynchronize(stream_));
  if (s->access != MapAccess::ReadOnly) s->transfer.write_to_gl(s->pinned.data(), s->bytes);
}

}  // namespace tomo::cuda
