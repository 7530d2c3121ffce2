#include "renderer/viewer/views.hpp"

#include <algorithm>
#include <cmath>

#include "renderer/gl/engine.hpp"

namespace tomo::viewer {

namespace {
const gl::Program& program(const char* frag) {
  return gl::shaders().program({{gl::Stage::Vertex, "viewer/quad.vert.glsl"}, {gl::Stage::Fragment, frag}});
}
}  // namespace

Views::Views() : vao_(gl::VertexArray::create()) {}

void Views::begin(const gl::Program& p, int win_w, int win_h, const Area& rect) {
  TOMO_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, 0));
  TOMO_GL_CHECK(glViewport(0, 0, win_w, win_h));
  TOMO_GL_CHECK(glDisable(GL_BLEND));
  TOMO_GL_CHECK(glDisable(GL_DEPTH_TEST));
  TOMO_GL_CHECK(glDisable(GL_CULL_FACE));
  TOMO_GL_CHECK(glDisable(GL_SCISSOR_TEST));
  p.use();
  p.set("u_rect", float(rect.x), float(rect.y), float(rect.width), float(rect.height));
  p.set("u_viewport", float(win_w), float(win_h));
  vao_.bind();
}

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
  const gl::Program& p = program("viewer/correspondence.frag.glsl");
  begin(p, win_w, win_h, {pl.x, pl.y, pl.scale * W, pl.scale * H});
  p.set("u_corr", 0);
  TOMO_GL_CHECK(glBindTextureUnit(0, corr.id()));
  p.set("u_origin", float(pl.x), float(pl.y));
  p.set("u_scale", float(pl.scale));
  p.set("u_size", W, H);
  p.set("u_na", pair.n_a());
  p.set("u_nt", pair.n_t());
  p.set("u_R", sys.R);
  p.set("u_wref", float(correspondence_weight_ref(pair, v, sys.R)));
  p.set("u_grid", st.grid ? 1 : 0);
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
  const gl::Program& p = program("viewer/atlas.frag.glsl");
  begin(p, win_w, win_h, {a.x, a.y, a.width, a.height});
  s.measured().bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  s.estimated().bind_base(GL_SHADER_STORAGE_BUFFER, 1);
  s.stats().bind_base(GL_SHADER_STORAGE_BUFFER, 2);
  p.set("u_offset", unsigned(sys.scanner.lor_offset(st.pair)));
  p.set("u_size", pair.atlas_width(), pair.atlas_height());
  p.set("u_mode", st.atlas_mode);
  p.set("u_origin", float(a.x), float(a.y));
  p.set("u_scale", st.atlas_zoom);
  p.set("u_pan", st.atlas_pan[0], st.atlas_pan[1]);
  TOMO_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 6));
}

void Views::draw_slices(GlpetSession& s, const ViewState& st, int win_w, int win_h) {
  const auto& d = s.system().grid.dims;
  const auto places = volume_layout(image_area(win_w, win_h), d, st.mip_axis);
  const gl::Program& p = program("viewer/volume.frag.glsl");
  for (int i = 0; i < 4; ++i) {
    const Placement& pl = places[i];
    const int axis = volume_panel_axis(i, st.mip_axis);
    begin(p, win_w, win_h, {pl.x, pl.y, pl.scale * pl.width, pl.scale * pl.height});
    s.image().bind_base(GL_SHADER_STORAGE_BUFFER, 0);
    s.stats().bind_base(GL_SHADER_STORAGE_BUFFER, 1);
    p.set("u_dims", d[0], d[1], d[2]);
    p.set("u_axis", axis);
    p.set("u_index", i < 3 ? st.voxel[axis] : -1);
    p.set("u_size", pl.width, pl.height);
    p.set("u_origin", float(pl.x), float(pl.y));
    p.set("u_scale", float(pl.scale));
    p.set("u_map", st.colour_map);
    p.set("u_lo", st.level - 0.5f * st.width);
    p.set("u_hi", st.level + 0.5f * st.width);
    p.set("u_slot", unsigned(kStatImage));
    TOMO_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 6));
  }
}

}  // namespace tomo::viewer
