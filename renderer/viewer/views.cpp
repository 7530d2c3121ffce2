#include "renderer/viewer/views.hpp"

#include <algorithm>
#include <cmath>

#include "renderer/gl/engine.hpp"
#include "renderer/gl/pipeline_state.hpp"
#include "renderer/gl/uniform.hpp"

namespace tomo::viewer {

namespace {

// viewer/quad.vert.glsl: the rectangle a view draws into.
struct QuadUniforms {
  gl::Uniform<gl::Vec4f> rect;
  gl::Uniform<gl::Vec2f> viewport;
  explicit QuadUniforms(const gl::Program& p) : rect(p, "u_rect"), viewport(p, "u_viewport") {}
};

// viewer/correspondence.frag.glsl: the correspondence image in false colour.
struct CorrespondenceView {
  const gl::Program& program;
  QuadUniforms quad;
  gl::Uniform<gl::Vec2f> origin;
  gl::Uniform<float> scale, wref;
  gl::Uniform<gl::Vec2i> size;
  gl::Uniform<int> na, nt, R, grid;
  explicit CorrespondenceView(const gl::Program& p)
      : program(p), quad(p), origin(p, "u_origin"), scale(p, "u_scale"), wref(p, "u_wref"), size(p, "u_size"),
        na(p, "u_na"), nt(p, "u_nt"), R(p, "u_R"), grid(p, "u_grid") {}
};

// viewer/atlas.frag.glsl: one pair's atlas (measured, estimated or their ratio).
struct AtlasView {
  const gl::Program& program;
  QuadUniforms quad;
  gl::Uniform<unsigned> offset;
  gl::Uniform<gl::Vec2i> size;
  gl::Uniform<int> mode;
  gl::Uniform<gl::Vec2f> origin, pan;
  gl::Uniform<float> scale;
  explicit AtlasView(const gl::Program& p)
      : program(p), quad(p), offset(p, "u_offset"), size(p, "u_size"), mode(p, "u_mode"), origin(p, "u_origin"),
        pan(p, "u_pan"), scale(p, "u_scale") {}
};

// viewer/volume.frag.glsl: a slice or a maximum-intensity projection of the image.
struct VolumeView {
  const gl::Program& program;
  QuadUniforms quad;
  gl::Uniform<gl::Vec3i> dims;
  gl::Uniform<int> axis, index, map;
  gl::Uniform<gl::Vec2i> size;
  gl::Uniform<gl::Vec2f> origin;
  gl::Uniform<float> scale, lo, hi;
  gl::Uniform<unsigned> slot;
  explicit VolumeView(const gl::Program& p)
      : program(p), quad(p), dims(p, "u_dims"), axis(p, "u_axis"), index(p, "u_index"), map(p, "u_map"),
        size(p, "u_size"), origin(p, "u_origin"), scale(p, "u_scale"), lo(p, "u_lo"), hi(p, "u_hi"),
        slot(p, "u_slot") {}
};

template <class View>
const View& view(const char* frag) {
  return gl::shaders().get<View>({{gl::Stage::Vertex, "viewer/quad.vert.glsl"}, {gl::Stage::Fragment, frag}});
}

// Binds `p` over the window's default framebuffer, drawing into `rect`.
void begin(const gl::Program& p, const QuadUniforms& quad, const gl::VertexArray& vao, int win_w, int win_h,
           const Area& rect) {
  TOMO_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, 0));
  TOMO_GL_CHECK(glViewport(0, 0, win_w, win_h));
  gl::apply(gl::PipelineState{});  // opaque quads
  p.use();
  quad.rect.set({float(rect.x), float(rect.y), float(rect.width), float(rect.height)});
  quad.viewport.set({float(win_w), float(win_h)});
  vao.bind();
}

}  // namespace

Views::Views() : vao_(gl::VertexArray::create()) {}

void Views::draw_correspondence(GlpetSession& s, ViewState& st, int win_w, int win_h) {
  const auto& sys = s.system();
  const auto& pair = sys.scanner.pairs.at(st.pair);
  const Vec3 v = sys.grid.centre(st.voxel[0], st.voxel[1], st.voxel[2]);
  if (!timer_) timer_ = gl::Query::create(GL_TIME_ELAPSED);
  TOMO_GL_CHECK(glBeginQuery(GL_TIME_ELAPSED, timer_.id()));
  const gl::Texture& corr = s.correspondence().draw_correspondence_image(st.pair, v);
  TOMO_GL_CHECK(glEndQuery(GL_TIME_ELAPSED));
  st.corr_ms = double(timer_.result_u64()) * 1e-6;
  TOMO_GL_CHECK(glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT));

  const int W = sys.R * pair.n_a(), H = sys.R * pair.n_t();
  corr_place_ = fit(image_area(win_w, win_h), W, H);
  const Placement& pl = corr_place_;
  const auto& p = view<CorrespondenceView>("viewer/correspondence.frag.glsl");
  begin(p.program, p.quad, vao_, win_w, win_h, {pl.x, pl.y, pl.scale * W, pl.scale * H});
  TOMO_GL_CHECK(glBindTextureUnit(binding::kCorrespondence, corr.id()));
  p.origin.set({float(pl.x), float(pl.y)});
  p.scale.set(float(pl.scale));
  p.size.set({W, H});
  p.na.set(pair.n_a());
  p.nt.set(pair.n_t());
  p.R.set(sys.R);
  p.wref.set(float(correspondence_weight_ref(pair, v, sys.R)));
  p.grid.set(st.grid ? 1 : 0);
  TOMO_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 6));
}

Placement Views::atlas_fit(const GlpetSession& s, const ViewState& st, int win_w, int win_h) const {
  const auto& pair = s.system().scanner.pairs.at(st.pair);
  Placement pl = fit(image_area(win_w, win_h), pair.atlas_width(), pair.atlas_height());
  return pl;
}

void Views::draw_atlas(GlpetSession& s, ViewState& st, int win_w, int win_h) {
  const auto& sys = s.system();
  const auto& pair = sys.scanner.pairs.at(st.pair);
  const Area a = image_area(win_w, win_h);
  if (st.atlas_zoom <= 0) {  // fit: the whole atlas, centred
    const Placement f = atlas_fit(s, st, win_w, win_h);
    st.atlas_zoom = float(f.scale);
    st.atlas_pan = {float(a.x - f.x) / f.scale, float(a.y - f.y) / f.scale};
  }
  const auto& p = view<AtlasView>("viewer/atlas.frag.glsl");
  begin(p.program, p.quad, vao_, win_w, win_h, {a.x, a.y, a.width, a.height});
  s.measured().bind_base(GL_SHADER_STORAGE_BUFFER, binding::kMeasured);
  s.estimated().bind_base(GL_SHADER_STORAGE_BUFFER, binding::kEstimated);
  s.stats().bind_base(GL_SHADER_STORAGE_BUFFER, binding::kAtlasStats);
  p.offset.set(unsigned(sys.scanner.lor_offset(st.pair)));
  p.size.set({pair.atlas_width(), pair.atlas_height()});
  p.mode.set(int(st.atlas_mode));
  p.origin.set({float(a.x), float(a.y)});
  p.scale.set(st.atlas_zoom);
  p.pan.set({st.atlas_pan[0], st.atlas_pan[1]});
  TOMO_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 6));
}

void Views::draw_slices(GlpetSession& s, const ViewState& st, int win_w, int win_h) {
  const auto& d = s.system().grid.dims;
  const auto places = volume_layout(image_area(win_w, win_h), d, st.mip_axis);
  const auto& p = view<VolumeView>("viewer/volume.frag.glsl");
  for (int i = 0; i < 4; ++i) {
    const Placement& pl = places[i];
    const int axis = volume_panel_axis(i, st.mip_axis);
    begin(p.program, p.quad, vao_, win_w, win_h, {pl.x, pl.y, pl.scale * pl.width, pl.scale * pl.height});
    s.image().bind_base(GL_SHADER_STORAGE_BUFFER, binding::kData);
    s.stats().bind_base(GL_SHADER_STORAGE_BUFFER, binding::kStats);
    p.dims.set({d[0], d[1], d[2]});
    p.axis.set(axis);
    p.index.set(i < 3 ? st.voxel[axis] : -1);
    p.size.set({pl.width, pl.height});
    p.origin.set({float(pl.x), float(pl.y)});
    p.scale.set(float(pl.scale));
    p.map.set(int(st.colour_map));
    p.lo.set(st.level - 0.5f * st.width);
    p.hi.set(st.level + 0.5f * st.width);
    p.slot.set(unsigned(kStatImage));
    TOMO_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 6));
  }
}

}  // namespace tomo::viewer
