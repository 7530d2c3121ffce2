// What both GL backends of glpet share: the BackendBuffer that wraps a GL buffer (x, ỹ,
// y and the sensitivity stay on the GPU between ML-EM iterations), the pair/grid
// uniforms of shaders/glpet/line_set.glsl, and the ML-EM update pass of seed eq. (3).
#pragma once
#include <cstddef>
#include <span>
#include <string>

#include "compute/core/registry.hpp"
#include "renderer/gl/objects.hpp"
#include "compute/glpet/projector.hpp"

namespace tomo::glpet {

class GlBuffer final : public BackendBuffer {
 public:
  explicit GlBuffer(std::size_t n);
  std::size_t size() const override { return n_; }
  void upload(std::span<const float> host) override;
  void download(std::span<float> host) const override;
  unsigned gl_name() const override { return buf_.id(); }
  const gl::Buffer& buffer() const { return buf_; }
  void clear();
  void clear(std::size_t first, std::size_t count);  // values [first, first + count)
  void zero() override { clear(); }

 private:
  std::size_t n_;
  gl::Buffer buf_;  // max(1, n) floats: GL refuses empty storage
};

// The GlBuffer behind a BackendBuffer; throws tomo::Error naming `who` otherwise.
GlBuffer& gl_buffer(BackendBuffer& b, const char* who);
const GlBuffer& gl_buffer(const BackendBuffer& b, const char* who);

// Uniforms of line_set.glsl for pair `pair` of `sys` (doubles: glProgramUniform*d).
void set_line_set_uniforms(const gl::Program& prog, const SystemModel& sys, std::size_t pair, bool sigma_empty);

// Sample offsets as a GL buffer of N×3 doubles (binding 1 of line_set.glsl).
gl::Buffer offsets_buffer(int N);

// x ← s > 0 ? x·b/s : 0 on the GPU.
void mlem_update_pass(GlBuffer& x, const GlBuffer& b, const GlBuffer& s);

// Waits for all GL work (glFinish).
void gl_finish();

}  // namespace tomo::glpet
