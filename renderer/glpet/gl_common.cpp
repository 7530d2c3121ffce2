// Shared pieces of the glpet GL backends (gl_common.hpp).
#include "renderer/glpet/gl_common.hpp"

#include <algorithm>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "renderer/gl/engine.hpp"

namespace tomo::glpet {

// Zero-initialised from host memory, not with glClearNamedBufferData: on the H200 a GPU clear
// of a fresh buffer followed at once by glNamedBufferSubData sometimes landed after the
// upload (GlDeviceGlpetGpu: up to 80 % of an uploaded vector read back as 0, intermittently).
GlBuffer::GlBuffer(std::size_t n)
    : n_(n),
      buf_(std::max<std::size_t>(1, n) * sizeof(float), std::vector<float>(std::max<std::size_t>(1, n), 0.0f).data()) {}

void GlBuffer::upload(std::span<const float> host) {
  if (host.size() != n_) throw Error(str_cat("glpet GL: upload of ", host.size(), " values into a buffer of ", n_));
  gl::shared_context().make_current();
  // Uploads are rare (data, the first iterate): let every queued GPU write to this buffer
  // (clears, passes) finish before the host copy, rather than rely on the driver's ordering.
  TOMO_GL_CHECK(glFinish());
  if (n_) buf_.upload(host.data(), n_ * sizeof(float));
}

void GlBuffer::download(std::span<float> host) const {
  if (host.size() != n_) throw Error(str_cat("glpet GL: download of ", n_, " values into ", host.size()));
  gl::shared_context().make_current();
  TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT));
  if (n_) buf_.download(host.data(), n_ * sizeof(float));
}

void GlBuffer::clear() { buf_.clear_zero(); }
void GlBuffer::clear(std::size_t first, std::size_t count) {
  first = std::min(first, n_);
  buf_.clear_zero(first * sizeof(float), std::min(count, n_ - first) * sizeof(float));
}

GlBuffer& gl_buffer(BackendBuffer& b, const char* who) {
  auto* g = dynamic_cast<GlBuffer*>(&b);
  if (!g) throw Error(str_cat("glpet ", who, ": buffer does not belong to a GL backend"));
  return *g;
}
const GlBuffer& gl_buffer(const BackendBuffer& b, const char* who) { return gl_buffer(const_cast<BackendBuffer&>(b), who); }

namespace {
void set_d3(const gl::Program& p, const char* name, const std::vector<double>& v) {
  const GLint loc = p.uniform(name);
  if (loc >= 0) TOMO_GL_CHECK(glProgramUniform3dv(p.id(), loc, GLsizei(v.size() / 3), v.data()));
}
void set_d2(const gl::Program& p, const char* name, const std::vector<double>& v) {
  const GLint loc = p.uniform(name);
  if (loc >= 0) TOMO_GL_CHECK(glProgramUniform2dv(p.id(), loc, GLsizei(v.size() / 2), v.data()));
}
}  // namespace

void set_line_set_uniforms(const gl::Program& prog, const SystemModel& sys, std::size_t pair, bool sigma_empty) {
  const ModulePair& pr = sys.scanner.pairs.at(pair);
  std::vector<double> centre, normal, axis_a, axis_t, corner, pitch;
  for (const Module& m : pr.modules) {
    const Vec3 c = m.corner();
    for (int a = 0; a < 3; ++a) {
      centre.push_back(m.centre[a]);
      normal.push_back(m.normal[a]);
      axis_a.push_back(m.axis_a[a]);
      axis_t.push_back(m.axis_t[a]);
      corner.push_back(c[a]);
    }
    pitch.push_back(m.pitch_a);
    pitch.push_back(m.pitch_t);
  }
  set_d3(prog, "u_centre", centre);
  set_d3(prog, "u_normal", normal);
  set_d3(prog, "u_axis_a", axis_a);
  set_d3(prog, "u_axis_t", axis_t);
  set_d3(prog, "u_corner", corner);
  set_d2(prog, "u_pitch", pitch);
  prog.set("u_na", pr.n_a());
  prog.set("u_nt", pr.n_t());
  prog.set("u_R", sys.R);
  prog.set("u_K", sys.K);
  prog.set("u_N", sys.N);
  prog.set("u_lor_offset", unsigned(sys.scanner.lor_offset(pair)));
  set_d3(prog, "u_grid_origin", {sys.grid.origin_mm[0], sys.grid.origin_mm[1], sys.grid.origin_mm[2]});
  set_d3(prog, "u_grid_voxel", {sys.grid.voxel_mm[0], sys.grid.voxel_mm[1], sys.grid.voxel_mm[2]});
  prog.set("u_dims", sys.grid.dims[0], sys.grid.dims[1], sys.grid.dims[2]);
  prog.set("u_sigma_empty", sigma_empty ? 1 : 0);
}

gl::Buffer offsets_buffer(int N) {
  std::vector<double> flat;
  for (const Vec3& o : sample_offsets(N)) flat.insert(flat.end(), o.begin(), o.end());
  return gl::Buffer::from(flat);
}

void mlem_update_pass(GlBuffer& x, const GlBuffer& b, const GlBuffer& s) {
  if (b.size() != x.size() || s.size() != x.size()) throw Error("glpet GL mlem_update: size mismatch");
  gl::shared_context().make_current();
  const gl::Program& p = gl::shaders().compute("glpet/mlem_update.comp.glsl");
  p.use();
  x.buffer().bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  b.buffer().bind_base(GL_SHADER_STORAGE_BUFFER, 1);
  s.buffer().bind_base(GL_SHADER_STORAGE_BUFFER, 2);
  p.set("u_n", unsigned(x.size()));
  TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
  p.dispatch(int(x.size()));
  TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT));
}

void gl_finish() {
  gl::shared_context().make_current();
  TOMO_GL_CHECK(glFinish());
}

}  // namespace tomo::glpet
