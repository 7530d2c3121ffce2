// glpet `gl` backend: [Toth2010] §II–IV as raster passes (see gl_projector.hpp and
// docs/glpet-gl.md for the passes and their difference from the line-set contract).
#include "renderer/glpet/gl_projector.hpp"

#include <algorithm>
#include <cstring>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/glpet/camera.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/glpet/bindings.hpp"
#include "renderer/glpet/gl_raster_passes.hpp"

namespace tomo::glpet {

namespace {

constexpr const char* kLayerExt = "GL_ARB_shader_viewport_layer_array";
constexpr int kRecordFloats = 20;  // mat4 view_projection + vec4 (v, primary)

void append_record(std::vector<float>& out, const ModulePair& pair, const Vec3& v, int R) {
  const RasterCamera cam = raster_camera(pair, v, R);
  const auto m = to_float(cam.view_projection);
  out.insert(out.end(), m.begin(), m.end());
  out.insert(out.end(), {float(v[0]), float(v[1]), float(v[2]), float(cam.primary)});
}

// Per-sample cameras ([Toth2010] §II.A) of every record, computed once: they do not depend on x or y.
std::vector<float> camera_records(const SystemModel& sys, const ModulePair& pair) {
  const auto& d = sys.grid.dims;
  const auto offsets = sample_offsets(sys.N);
  const long nvox = long(sys.voxel_count());
  std::vector<float> records(std::size_t(nvox) * sys.N * kRecordFloats);
#pragma omp parallel for schedule(static)
  for (long idx = 0; idx < nvox; ++idx) {
    const int i = int(idx % d[0]), j = int((idx / d[0]) % d[1]), k = int(idx / (long(d[0]) * d[1]));
    std::vector<float> rec;
    rec.reserve(std::size_t(sys.N) * kRecordFloats);
    for (const Vec3& off : offsets) append_record(rec, pair, sample_position(sys.grid, i, j, k, off), sys.R);
    std::memcpy(records.data() + std::size_t(idx) * sys.N * kRecordFloats, rec.data(), rec.size() * sizeof(float));
  }
  return records;
}

}  // namespace

struct GlRasterProjector::PairState {
  int W = 0, H = 0, layers = 0, top = 0;
  gl::Buffer cams;   // one record per voxel sample, index voxel·N + n
  gl::Texture corr;  // RGBA32F 2D array W×H×layers: the correspondence images of a batch
  gl::Texture red;   // RGBA32F 2D array with the full mip chain: terms, then their halving sums
  gl::Texture atlas; // R32F N_a²×N_t²
  gl::Framebuffer atlas_fbo;
  // Uniform arrays indexed by the primary module (0/1).
  std::vector<float> sec_corner, sec_colour, pixel_origin, pixel_du, pixel_dv, normal;
  float pixel_area[2] = {0, 0};

  // The correspondence pass's uniform arrays for `pair`: primary module 0 or 1.
  void set_module_uniforms(const ModulePair& pair, int R) {
    for (int prim = 0; prim < 2; ++prim) {
      const Module& m1 = pair.modules[prim];
      const Module& m2 = pair.modules[1 - prim];
      for (int c = 0; c < 4; ++c) {
        const double a = (c == 1 || c == 2) ? m2.width() : 0.0, t = c >= 2 ? m2.height() : 0.0;
        const Vec3 p = m2.point(a, t);
        sec_corner.insert(sec_corner.end(), {float(p[0]), float(p[1]), float(p[2])});
        sec_colour.insert(sec_colour.end(), {(c == 1 || c == 2) ? float(m2.n_a + 1) : 1.f, c >= 2 ? float(m2.n_t + 1) : 1.f});
      }
      const Vec3 o = m1.corner(), du = scale(m1.axis_a, m1.pitch_a / R), dv = scale(m1.axis_t, m1.pitch_t / R);
      for (int a = 0; a < 3; ++a) {
        pixel_origin.push_back(float(o[a]));
        pixel_du.push_back(float(du[a]));
        pixel_dv.push_back(float(dv[a]));
        normal.push_back(float(m1.normal[a]));
      }
      pixel_area[prim] = float(m1.pitch_a * m1.pitch_t / (double(R) * R));
    }
  }
};

GlRasterProjector::GlRasterProjector(const GlRasterOptions& options) : options_(options) {
  if (options_.batch_layers < 0) throw Error("glpet gl: batch_layers must be >= 0");
}
GlRasterProjector::~GlRasterProjector() {
  // GL names are freed in the shared context (a viewer may have made another current).
  if (!sigma_) return;
  try {
    gl::shared_context().make_current();
  } catch (...) {
  }
}

void GlRasterProjector::configure(const SystemModel& system, const ProjectorOptions&) {
  system.validate();
  gl::shared_context().make_current();
  gl::require_extensions("glpet gl", {kLayerExt});
  sys_ = system;
  const auto& d = sys_.grid.dims;
  sigma_empty_ = std::all_of(sys_.sigma_t.data.begin(), sys_.sigma_t.data.end(), [](float s) { return s == 0.f; });
  sigma_ = gl::Texture::create_3d(GL_R32F, d[0], d[1], d[2]);
  sigma_.upload_float(sys_.sigma_t.data.data(), 1);
  // texelFetch ignores these; the hardware-filter variant needs linear filtering with a
  // zero border (the default border colour) outside the grid.
  sigma_.set_filter(GL_LINEAR, GL_LINEAR);
  sigma_.set_wrap(GL_CLAMP_TO_BORDER);
  if (!reducer_) reducer_ = std::make_unique<gl::HalvingReducer>();
  if (!fbo_) fbo_ = gl::Framebuffer::create();
  if (!vao_) vao_ = gl::VertexArray::create();
  if (!dummy_) dummy_ = gl::Buffer(16);
  pairs_.clear();
  for (const ModulePair& pair : sys_.scanner.pairs) pairs_.push_back(make_pair_state(pair));
}

// Batch size (layers) from the memory budget, the pass targets and the camera records of one pair.
std::unique_ptr<GlRasterProjector::PairState> GlRasterProjector::make_pair_state(const ModulePair& pair) const {
  const int max_layers = gl::shared_context().info().caps.max_array_texture_layers;
  const bool software = gl::shared_context().info().gl_renderer.find("llvmpipe") != std::string::npos;
  const double budget = software ? 64.0 * (1 << 20) : 1024.0 * (1 << 20);  // bytes for corr + red
  const long nvox = long(sys_.voxel_count());
  auto ps = std::make_unique<PairState>();
  ps->W = sys_.R * pair.n_a();
  ps->H = sys_.R * pair.n_t();
  const double per_layer = double(ps->W) * ps->H * 16.0 * (1.0 + 4.0 / 3.0);
  int layers = options_.batch_layers > 0 ? options_.batch_layers : int(std::clamp(budget / per_layer, 1.0, 2048.0));
  layers = std::min(layers, max_layers);
  layers = std::max(sys_.N, layers - layers % sys_.N);  // whole voxels per batch
  layers = int(std::min<long>(layers, nvox * sys_.N));
  ps->layers = layers;
  const int levels = gl::reduction_levels(ps->W, ps->H);
  ps->top = levels - 1;
  ps->corr = gl::Texture::create_2d_array(GL_RGBA32F, ps->W, ps->H, layers);
  ps->red = gl::Texture::create_2d_array(GL_RGBA32F, ps->W, ps->H, layers, levels);
  ps->atlas = gl::Texture::create_2d(GL_R32F, pair.atlas_width(), pair.atlas_height());
  ps->atlas_fbo = gl::Framebuffer::create();
  ps->atlas_fbo.attach(GL_COLOR_ATTACHMENT0, ps->atlas);
  ps->atlas_fbo.set_draw_buffers(1);
  ps->atlas_fbo.check_complete();
  ps->cams = gl::Buffer::from(camera_records(sys_, pair));
  ps->set_module_uniforms(pair, sys_.R);
  return ps;
}

bool GlRasterProjector::restrict_voxels(std::size_t first, std::size_t count) {
  range_first_ = first;
  range_count_ = count;
  return true;
}

int GlRasterProjector::record_begin() const {
  if (range_count_ == 0) return 0;
  return int(std::min(range_first_, sys_.voxel_count()) * std::size_t(sys_.N));
}

int GlRasterProjector::record_end() const {
  const std::size_t n = sys_.voxel_count();
  if (range_count_ == 0) return int(n * std::size_t(sys_.N));
  return int(std::min(n, range_first_ + range_count_) * std::size_t(sys_.N));
}

std::unique_ptr<BackendBuffer> GlRasterProjector::make_image() {
  gl::shared_context().make_current();
  return std::make_unique<GlBuffer>(sys_.voxel_count());
}
std::unique_ptr<BackendBuffer> GlRasterProjector::make_lors() {
  gl::shared_context().make_current();
  return std::make_unique<GlBuffer>(sys_.lor_count());
}

template <class F>
void GlRasterProjector::observed(RasterPassKind pass, F&& f) {
  if (options_.observer) options_.observer->begin(pass);
  f();
  if (options_.observer) options_.observer->end(pass);
}

// Pass 1: layers [0, layers) of ps.corr = correspondence images of records
// [first_record, first_record + layers).
void GlRasterProjector::draw_correspondences(PairState& ps, std::size_t pair, int first_record, int layers,
                                             const GlBuffer* skip_x, const gl::Buffer& cams) {
  gl::Defines defs;
  if (options_.sigma_fetch == SigmaFetch::Hardware) defs.emplace_back("HW_FILTER", "1");
  const auto& pass = gl::shaders().get<CorrespondencePass>(
      {{gl::Stage::Vertex, "glpet/correspondence.vert.glsl"}, {gl::Stage::Fragment, "glpet/correspondence.frag.glsl"}},
      defs);
  pass.program.use();
  const ModulePair& pr = sys_.scanner.pairs[pair];
  cams.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kCameras);
  (skip_x ? skip_x->buffer() : dummy_).bind_base(GL_SHADER_STORAGE_BUFFER, binding::kImage);
  pass.common.first_record.set(first_record);
  pass.common.N.set(sys_.N);
  pass.common.R.set(sys_.R);
  pass.common.na.set(pr.n_a());
  pass.common.nt.set(pr.n_t());
  pass.skip_zero.set(skip_x ? 1 : 0);
  pass.sec_corner.set_array(ps.sec_corner.data(), 8);
  pass.sec_colour.set_array(ps.sec_colour.data(), 8);
  pass.pixel_origin.set_array(ps.pixel_origin.data(), 2);
  pass.pixel_du.set_array(ps.pixel_du.data(), 2);
  pass.pixel_dv.set_array(ps.pixel_dv.data(), 2);
  pass.primary_normal.set_array(ps.normal.data(), 2);
  pass.pixel_area.set_array(ps.pixel_area, 2);
  grid_block_.bind(sys_.grid);
  pass.K.set(sys_.K);
  pass.sigma_empty.set(sigma_empty_ ? 1 : 0);
  TOMO_GL_CHECK(glBindTextureUnit(binding::kSigmaTexture, sigma_.id()));

  fbo_.attach(GL_COLOR_ATTACHMENT0, ps.corr);  // layered attachment: all layers
  fbo_.set_draw_buffers(1);
  fbo_.check_complete();
  fbo_.bind();
  vao_.bind();
  TOMO_GL_CHECK(glViewport(0, 0, ps.W, ps.H));
  gl::apply(CorrespondencePass::kState);  // no culling: the camera basis may be left-handed
  const float zero[4] = {0, 0, 0, 0};
  TOMO_GL_CHECK(glClearNamedFramebufferfv(fbo_.id(), GL_COLOR, 0, zero));  // [Toth2010]: clear by zero
  TOMO_GL_CHECK(glDrawArraysInstanced(GL_TRIANGLES, 0, 6, layers));
}

void GlRasterProjector::forward(const BackendBuffer& xb, BackendBuffer& yb) {
  const GlBuffer& x = gl_buffer(xb, "gl forward");
  GlBuffer& y = gl_buffer(yb, "gl forward");
  if (x.size() != sys_.voxel_count() || y.size() != sys_.lor_count()) throw Error("glpet gl forward: size mismatch");
  gl::shared_context().make_current();
  TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
  const auto& pts = gl::shaders().get<AtlasPointsPass>(
      {{gl::Stage::Vertex, "glpet/atlas_points.vert.glsl"}, {gl::Stage::Fragment, "glpet/atlas_points.frag.glsl"}});
  for (std::size_t pair = 0; pair < pairs_.size(); ++pair) {
    PairState& ps = *pairs_[pair];
    const ModulePair& pr = sys_.scanner.pairs[pair];
    const float zero[4] = {0, 0, 0, 0};
    TOMO_GL_CHECK(glClearNamedFramebufferfv(ps.atlas_fbo.id(), GL_COLOR, 0, zero));
    for (int first = record_begin(); first < record_end(); first += ps.layers) {
      const int layers = std::min(ps.layers, record_end() - first);
      observed(RasterPassKind::Correspondence, [&] { draw_correspondences(ps, pair, first, layers, &x, ps.cams); });
      // Pass 2 ([Toth2010] §III): points into the atlas, GL_ONE/GL_ONE blending.
      observed(RasterPassKind::Atlas, [&] {
        pts.program.use();
        ps.cams.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kCameras);
        x.buffer().bind_base(GL_SHADER_STORAGE_BUFFER, binding::kImage);
        pts.common.first_record.set(first);
        pts.common.N.set(sys_.N);
        pts.common.R.set(sys_.R);
        pts.common.na.set(pr.n_a());
        pts.common.nt.set(pr.n_t());
        pts.size.set({ps.W, ps.H});
        pts.atlas_size.set({pr.atlas_width(), pr.atlas_height()});
        TOMO_GL_CHECK(glBindTextureUnit(binding::kCorrespondence, ps.corr.id()));
        ps.atlas_fbo.bind();
        vao_.bind();
        TOMO_GL_CHECK(glViewport(0, 0, pr.atlas_width(), pr.atlas_height()));
        gl::apply(AtlasPointsPass::kState);
        TOMO_GL_CHECK(glDrawArrays(GL_POINTS, 0, ps.W * ps.H * layers));
        gl::apply(gl::PipelineState{});  // passes outside glpet expect blending off
      });
    }
    // The atlas is this pair's slice of ỹ: a GPU-side copy through the pixel-pack buffer.
    TOMO_GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, y.buffer().id()));
    TOMO_GL_CHECK(glPixelStorei(GL_PACK_ALIGNMENT, 4));
    const std::size_t offset = sys_.scanner.lor_offset(pair) * sizeof(float);
    TOMO_GL_CHECK(glGetTextureImage(ps.atlas.id(), 0, GL_RED, GL_FLOAT, GLsizei(pr.lor_count() * sizeof(float)),
                                    reinterpret_cast<void*>(offset)));
    TOMO_GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
  }
  TOMO_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, 0));
}

void GlRasterProjector::gather(GatherMode mode, const GlBuffer* z, const GlBuffer* t, GlBuffer* b, GlBuffer* s) {
  gl::shared_context().make_current();
  if ((z && z->size() != sys_.lor_count()) || (t && t->size() != sys_.lor_count()) ||
      (b && b->size() != sys_.voxel_count()) || (s && s->size() != sys_.voxel_count()))
    throw Error("glpet gl back-projection: size mismatch");
  // The collect pass adds into b and s: clear what this pass visits (restrict_voxels leaves
  // the other voxels as they were).
  const std::size_t first_voxel = std::size_t(record_begin() / sys_.N);
  const std::size_t voxels = std::size_t(record_end() / sys_.N) - first_voxel;
  if (b) b->clear(first_voxel, voxels);
  if (s) s->clear(first_voxel, voxels);
  TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
  const auto& terms = gl::layered_pass<TermsPass>("glpet/ratio.frag.glsl");
  const auto& collect = gl::shaders().get_compute<CollectPass>("glpet/collect.comp.glsl");
  for (std::size_t pair = 0; pair < pairs_.size(); ++pair) {
    PairState& ps = *pairs_[pair];
    const ModulePair& pr = sys_.scanner.pairs[pair];
    for (int first = record_begin(); first < record_end(); first += ps.layers) {
      const int layers = std::min(ps.layers, record_end() - first);
      observed(RasterPassKind::Correspondence, [&] { draw_correspondences(ps, pair, first, layers, nullptr, ps.cams); });
      // Pass 3a ([Toth2010] §IV): (A·z, A, 0, 0) into level 0 of the reduction texture.
      observed(RasterPassKind::Terms, [&] {
        terms.program.use();
        ps.cams.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kCameras);
        (z ? z->buffer() : dummy_).bind_base(GL_SHADER_STORAGE_BUFFER, binding::kLors);
        (t ? t->buffer() : dummy_).bind_base(GL_SHADER_STORAGE_BUFFER, binding::kLorsEstimate);
        terms.first_layer.set(0);
        terms.common.first_record.set(first);
        terms.common.R.set(sys_.R);
        terms.common.na.set(pr.n_a());
        terms.common.nt.set(pr.n_t());
        terms.mode.set(int(z ? mode : GatherMode::Sensitivity));
        terms.lor_offset.set(unsigned(sys_.scanner.lor_offset(pair)));
        TOMO_GL_CHECK(glBindTextureUnit(binding::kCorrespondence, ps.corr.id()));
        fbo_.attach(GL_COLOR_ATTACHMENT0, ps.red, 0);
        fbo_.set_draw_buffers(1);
        fbo_.check_complete();
        fbo_.bind();
        vao_.bind();
        TOMO_GL_CHECK(glViewport(0, 0, ps.W, ps.H));
        gl::apply(TermsPass::kState);
        TOMO_GL_CHECK(glDrawArraysInstanced(GL_TRIANGLES, 0, 3, layers));
      });
      // Pass 3b: halving mip-reduction of all layers at once, to 1×1.
      observed(RasterPassKind::Reduction, [&] { reducer_->reduce(ps.red, 0, layers); });
      // Pass 3c: per voxel, Σ over its N sample layers / N into b and s.
      observed(RasterPassKind::Collect, [&] {
        collect.program.use();
        (b ? b->buffer() : dummy_).bind_base(GL_SHADER_STORAGE_BUFFER, binding::kBack);
        (s ? s->buffer() : dummy_).bind_base(GL_SHADER_STORAGE_BUFFER, binding::kSensitivity);
        TOMO_GL_CHECK(glBindTextureUnit(binding::kReduction, ps.red.id()));
        collect.top.set(ps.top);
        collect.first_voxel.set(unsigned(first / sys_.N));
        collect.batch_voxels.set(unsigned(layers / sys_.N));
        collect.N.set(sys_.N);
        collect.want_b.set(b && z ? 1 : 0);
        collect.want_sens.set(s ? 1 : 0);
        collect.program.dispatch(layers / sys_.N);
        TOMO_GL_CHECK(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT));
      });
    }
  }
  TOMO_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, 0));
  TOMO_GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
}

void GlRasterProjector::back(const BackendBuffer& z, BackendBuffer& b) {
  gather(GatherMode::Back, &gl_buffer(z, "gl back"), nullptr, &gl_buffer(b, "gl back"), nullptr);
}

void GlRasterProjector::back_ratio(const BackendBuffer& y, const BackendBuffer& t, BackendBuffer& b, BackendBuffer* sens) {
  gather(GatherMode::Ratio, &gl_buffer(y, "gl back_ratio"), &gl_buffer(t, "gl back_ratio"), &gl_buffer(b, "gl back_ratio"),
         sens ? &gl_buffer(*sens, "gl back_ratio") : nullptr);
}

void GlRasterProjector::sensitivity(BackendBuffer& sens) {
  gather(GatherMode::Sensitivity, nullptr, nullptr, nullptr, &gl_buffer(sens, "gl sensitivity"));
}

bool GlRasterProjector::subset_update(BackendBuffer& x, const BackendBuffer& b, const BackendBuffer& s) {
  subset_update_pass(gl_buffer(x, "gl subset_update"), gl_buffer(b, "gl subset_update"), gl_buffer(s, "gl subset_update"));
  return true;
}

void GlRasterProjector::mlem_update(BackendBuffer& x, const BackendBuffer& b, const BackendBuffer& s) {
  mlem_update_pass(gl_buffer(x, "gl mlem_update"), gl_buffer(b, "gl mlem_update"), gl_buffer(s, "gl mlem_update"));
}

const gl::Texture& GlRasterProjector::draw_correspondence_image(std::size_t pair, const Vec3& v) {
  if (pair >= pairs_.size()) throw Error(str_cat("glpet gl: no pair ", pair));
  gl::shared_context().make_current();
  PairState& ps = *pairs_[pair];
  std::vector<float> rec;
  append_record(rec, sys_.scanner.pairs[pair], v, sys_.R);
  const gl::Buffer cam = gl::Buffer::from(rec);
  draw_correspondences(ps, pair, 0, 1, nullptr, cam);
  TOMO_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, 0));
  return ps.corr;
}

bool GlRasterProjector::correspondence_image(std::size_t pair, const Vec3& v, std::vector<CorrespondencePixel>& out) {
  draw_correspondence_image(pair, v);
  PairState& ps = *pairs_[pair];
  std::vector<float> f(std::size_t(ps.W) * ps.H * 4);
  TOMO_GL_CHECK(glPixelStorei(GL_PACK_ALIGNMENT, 4));
  TOMO_GL_CHECK(glGetTextureSubImage(ps.corr.id(), 0, 0, 0, 0, ps.W, ps.H, 1, GL_RGBA, GL_FLOAT,
                                     GLsizei(f.size() * sizeof(float)), f.data()));
  out.assign(std::size_t(ps.W) * ps.H, CorrespondencePixel{});
  for (std::size_t i = 0; i < out.size(); ++i)
    if (f[4 * i + 3] != 0.f) out[i] = {f[4 * i], f[4 * i + 1], f[4 * i + 2]};
  return true;
}

void GlRasterProjector::synchronize() { gl_finish(); }

namespace {
const BackendRegistrar<Projector> kRegisterGl({"gl", kPriorityGlRaster, [] { return gl::availability({kLayerExt}); },
                                               [] { return std::make_unique<GlRasterProjector>(); }});
}  // namespace

}  // namespace tomo::glpet
