#include "renderer/glpet/gl_display_copy.hpp"

#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "renderer/gl/engine.hpp"

namespace tomo::glpet {

CopyPath copy_to_gl(const BackendBuffer& src, gl::Buffer& dst) {
  const std::size_t bytes = src.size() * sizeof(float);
  if (dst.bytes() < bytes)
    throw Error(str_cat("glpet display copy: ", src.size(), " values do not fit a GL buffer of ", dst.bytes(), " bytes"));
  if (bytes == 0) return CopyPath::Gpu;
  if (const unsigned name = src.gl_name()) {
    gl::shared_context().make_current();
    // GL backends wrote it from shaders; a cuda buffer was unmapped at the end of the last
    // operator call, which already orders the kernels before this copy.
    TOMO_GL_CHECK(glMemoryBarrier(GL_ALL_BARRIER_BITS));
    TOMO_GL_CHECK(glCopyNamedBufferSubData(name, dst.id(), 0, 0, GLsizeiptr(bytes)));
    return CopyPath::Gpu;
  }
  std::vector<float> host = download(src);  // may run on the backend's device: before GL is made current
  gl::shared_context().make_current();
  dst.upload(host.data(), bytes);
  return CopyPath::Host;
}

}  // namespace tomo::glpet
