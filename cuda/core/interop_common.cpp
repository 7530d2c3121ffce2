// Helpers shared by the interop buffer and image units (see interop_detail.hpp), and the
// GL internal format -> CUDA channel format table.
#include <cuda_gl_interop.h>

#include <atomic>

#include "cuda/core/check.hpp"
#include "cuda/core/interop_detail.hpp"

namespace tomo::cuda {

std::optional<cudaChannelFormatDesc> channel_desc_for_gl_format(unsigned f) {
  const auto u = cudaChannelFormatKindUnsigned;
  const auto s = cudaChannelFormatKindSigned;
  const auto fl = cudaChannelFormatKindFloat;
  switch (f) {
    case GL_R8: case GL_R8UI: return cudaCreateChannelDesc(8, 0, 0, 0, u);
    case GL_RG8: case GL_RG8UI: return cudaCreateChannelDesc(8, 8, 0, 0, u);
    case GL_RGBA8: case GL_RGBA8UI: return cudaCreateChannelDesc(8, 8, 8, 8, u);
    case GL_R8I: return cudaCreateChannelDesc(8, 0, 0, 0, s);
    case GL_RGBA8I: return cudaCreateChannelDesc(8, 8, 8, 8, s);
    case GL_R16: case GL_R16UI: return cudaCreateChannelDesc(16, 0, 0, 0, u);
    case GL_RG16: case GL_RG16UI: return cudaCreateChannelDesc(16, 16, 0, 0, u);
    case GL_RGBA16: case GL_RGBA16UI: return cudaCreateChannelDesc(16, 16, 16, 16, u);
    case GL_R16I: return cudaCreateChannelDesc(16, 0, 0, 0, s);
    case GL_R16F: return cudaCreateChannelDesc(16, 0, 0, 0, fl);
    case GL_RG16F: return cudaCreateChannelDesc(16, 16, 0, 0, fl);
    case GL_RGBA16F: return cudaCreateChannelDesc(16, 16, 16, 16, fl);
    case GL_R32F: return cudaCreateChannelDesc(32, 0, 0, 0, fl);
    case GL_RG32F: return cudaCreateChannelDesc(32, 32, 0, 0, fl);
    case GL_RGBA32F: return cudaCreateChannelDesc(32, 32, 32, 32, fl);
    case GL_R32UI: return cudaCreateChannelDesc(32, 0, 0, 0, u);
    case GL_RG32UI: return cudaCreateChannelDesc(32, 32, 0, 0, u);
    case GL_RGBA32UI: return cudaCreateChannelDesc(32, 32, 32, 32, u);
    case GL_R32I: return cudaCreateChannelDesc(32, 0, 0, 0, s);
    case GL_RG32I: return cudaCreateChannelDesc(32, 32, 0, 0, s);
    case GL_RGBA32I: return cudaCreateChannelDesc(32, 32, 32, 32, s);
    default: return std::nullopt;
  }
}

ArrayExtent GlImageDesc::extent() const {
  if (target == kGlTexture3D) return {width, height, depth};
  return {width, height, 0};
}

namespace detail {

unsigned register_flags(MapAccess access) {
  switch (access) {
    case MapAccess::ReadOnly: return cudaGraphicsRegisterFlagsReadOnly;
    case MapAccess::WriteDiscard: return cudaGraphicsRegisterFlagsWriteDiscard;
    case MapAccess::ReadWrite: break;
  }
  return cudaGraphicsRegisterFlagsNone;
}

void require_transfer(const HostTransfer& t, MapAccess access, const std::string& what, const std::string& reason) {
  const bool need_read = access != MapAccess::WriteDiscard;
  const bool need_write = access != MapAccess::ReadOnly;
  if ((need_read && !t.read_from_gl) || (need_write && !t.write_to_gl))
    throw UnavailableError(str_cat("CUDA-GL interop: ", what, " cannot be registered with CUDA (", reason,
                                   ") and no HostTransfer ", need_read && !t.read_from_gl ? "read_from_gl" : "write_to_gl",
                                   " was given for the copy path"));
}

void log_path_once(const char* kind, bool zero_copy, const std::string& what, const std::string& reason) {
  static std::atomic<bool> logged[2][2] = {};
  const int k = std::string_view(kind) == "buffer" ? 0 : 1;
  if (logged[k][zero_copy ? 1 : 0].exchange(true)) {
    log_debug("CUDA-GL interop: ", what, zero_copy ? ": zero-copy" : str_cat(": copy path (", reason, ")"));
    return;
  }
  if (zero_copy)
    log_info("CUDA-GL interop: ", kind, "s are mapped zero-copy (first: ", what, ")");
  else
    log_info("CUDA-GL interop: ", kind, "s go through host copies (first: ", what, ": ", reason, ")");
}

std::string error_reason(cudaError_t err) {
  (void)cudaGetLastError();
  return str_cat(cudaGetErrorName(err), ": ", cudaGetErrorString(err));
}

void unregister_logged(cudaGraphicsResource_t& resource, bool mapped, const std::string& what) noexcept {
  if (!resource) return;
  if (mapped) log_error("CUDA-GL interop: ", what, " destroyed while mapped (a map guard outlives its resource)");
  TOMO_CUDA_LOG(cudaGraphicsUnregisterResource(resource));
  resource = nullptr;
}

}  // namespace detail
}  // namespace tomo::cuda
