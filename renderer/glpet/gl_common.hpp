// What both GL backends of glpet share: the BackendBuffer that wraps a GL buffer (x, ỹ,
// y and the sensitivity stay on the GPU between ML-EM iterations), the pair/grid
// uniforms of shaders/glpet/line_set.glsl, and the ML-EM update pass of [Toth2010] eq. (3).
#pragma once
#include <cstddef>
#include <span>
#include <string>

#include "compute/core/registry.hpp"
#include "compute/glpet/projector.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/uniform.hpp"

namespace tomo::glpet {

// What a back-projection gathers per line l; the values are the shaders' u_mode.
enum class GatherMode : int {
  Back = 0,         // z_l: b = Aᵀz
  Ratio = 1,        // y_l/ỹ_l (0 where ỹ_l <= 0): the ML-EM back-projection
  Sensitivity = 2,  // nothing (z = 0): only the column sums s = Aᵀ1
};

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

// The uniforms of line_set.glsl (geometry in doubles), in every gl-compute pass.
struct LineSetUniforms {
  gl::Uniform<gl::Vec3d> centre, normal, axis_a, axis_t, corner;  // arrays of the pair's 2 modules
  gl::Uniform<gl::Vec2d> pitch;                                   // array of 2
  gl::Uniform<int> na, nt, R, K, N, sigma_empty;
  gl::Uniform<unsigned> lor_offset;
  gl::Uniform<gl::Vec3d> grid_origin, grid_voxel;
  gl::Uniform<gl::Vec3i> dims;
  explicit LineSetUniforms(const gl::Program& p);
  // Pair `pair` of `sys`.
  void set(const SystemModel& sys, std::size_t pair, bool sigma_empty) const;
};

// Sample offsets as a GL buffer of N×3 doubles (binding::kOffsets of line_set.glsl).
gl::Buffer offsets_buffer(int N);

// x ← s > 0 ? x·b/s : 0 on the GPU.
void mlem_update_pass(GlBuffer& x, const GlBuffer& b, const GlBuffer& s);
// A subset's update (Projector::subset_update): as mlem_update_pass where s > 0, x kept elsewhere.
void subset_update_pass(GlBuffer& x, const GlBuffer& b, const GlBuffer& s);

// Waits for all GL work (glFinish).
void gl_finish();

}  // namespace tomo::glpet
