// Shared pieces of the glpet GL backends (gl_common.hpp).
#include "renderer/glpet/gl_common.hpp"

#include <algorithm>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/glpet/bindings.hpp"

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

LineSetUniforms::LineSetUniforms(const gl::Program& p)
    : centre(p, "u_centre"), normal(p, "u_normal"), axis_a(p, "u_axis_a"), axis_t(p, "u_axis_t"),
      corner(p, "u_corner"), pitch(p, "u_pitch"), na(p, "u_na"), nt(p, "u_nt"), R(p, "u_R"), K(p, "u_K"),
      N(p, "u_N"), sigma_empty(p, "u_sigma_empty"), lor_offset(p, "u_lor_offset"),
      grid_origin(p, "u_grid_origin"), grid_voxel(p, "u_grid_voxel"), dims(p, "u_dims") {}

void LineSetUniforms::set(const SystemModel& sys, std::size_t pair, bool empty) const {
  const ModulePair& pr = sys.scanner.pairs.at(pair);
  std::vector<double> centres, normals, axes_a, axes_t, corners, pitches;
  for (const Module& m : pr.modules) {
    const Vec3 c = m.corner();
    for (int a = 0; a < 3; ++a) {
      centres.push_back(m.centre[a]);
      normals.push_back(m.normal[a]);
      axes_a.push_back(m.axis_a[a]);
      axes_t.push_back(m.axis_t[a]);
      corners.push_back(c[a]);
    }
    pitches.push_back(m.pitch_a);
    pitches.push_back(m.pitch_t);
  }
  centre.set_array(centres.data(), 2);
  normal.set_array(normals.data(), 2);
  axis_a.set_array(axes_a.data(), 2);
  axis_t.set_array(axes_t.data(), 2);
  corner.set_array(corners.data(), 2);
  pitch.set_array(pitches.data(), 2);
  na.set(pr.n_a());
  nt.set(pr.n_t());
  R.set(sys.R);
  K.set(sys.K);
  N.set(sys.N);
  lor_offset.set(unsigned(sys.scanner.lor_offset(pair)));
  grid_origin.set({sys.grid.origin_mm[0], sys.grid.origin_mm[1], sys.grid.origin_mm[2]});
  grid_voxel.set({sys.grid.voxel_mm[0], sys.grid.voxel_mm[1], sys.grid.voxel_mm[2]});
  dims.set({sys.grid.dims[0], sys.grid.dims[1], sys.grid.dims[2]});
  sigma_empty.set(empty ? 1 : 0);
}

gl::Buffer offsets_buffer(int N) {
  std::vector<double> flat;
  for (const Vec3& o : sample_offsets(N)) flat.insert(flat.end(), o.begin(), o.end());
  return gl::Buffer::from(flat);
}

namespace {
// mlem_update.comp.glsl.
struct UpdatePass {
  const gl::Program& program;
  gl::Uniform<unsigned> n;
  explicit UpdatePass(const gl::Program& p) : program(p), n(p, "u_n") {}
};
}  // namespace

namespace {
void update_pass(GlBuffer& x, const GlBuffer& b, const GlBuffer& s, bool keep) {
  if (b.size() != x.size() || s.size() != x.size()) throw Error("glpet GL mlem_update: size mismatch");
  gl::shared_context().make_current();
  const auto& pass = gl::shaders().get_compute<UpdatePass>("glpet/mlem_update.comp.glsl", {{"KEEP", keep ? "1" : "0"}});
  pass.program.use();
  x.buffer().bind_base(GL_SHADER_STORAGE_BUFFER, binding::kUpdateImage);
  b.buffer().bind_base(GL_SHADER_STORAGE_BUFFER, binding::kUpdateBack);
  s.buffer().bind_base(GL_SHADER_STORAGE_BUFFER, binding::kUpdateSensitivity);
  pass.n.set(unsigned(x.size()));
  TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
  pass.program.dispatch(int(x.size()));
  TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT));
}
}  // namespace

void mlem_update_pass(GlBuffer& x, const GlBuffer& b, const GlBuffer& s) { update_pass(x, b, s, false); }
void subset_update_pass(GlBuffer& x, const GlBuffer& b, const GlBuffer& s) { update_pass(x, b, s, true); }

void gl_finish() {
  gl::shared_context().make_current();
  TOMO_GL_CHECK(glFinish());
}

}  // namespace tomo::glpet
