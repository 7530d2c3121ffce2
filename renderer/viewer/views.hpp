// The viewer's three views as GL draws into the default framebuffer, and their state.
#pragma once
#include <array>
#include <string>

#include "renderer/viewer/bindings.hpp"
#include "renderer/viewer/layout.hpp"
#include "renderer/viewer/session.hpp"

namespace tomo::viewer {

// What the atlas view shows (u_mode of shaders/viewer/atlas.frag.glsl).
enum class AtlasMode : int {
  Measured = binding::kAtlasMeasured,
  Estimated = binding::kAtlasEstimated,
  Ratio = binding::kAtlasRatio,  // y / ỹ
};
// The slice views' colour map (colour_map() of shaders/viewer/colour.glsl).
enum class ColourMap : int { Gray = binding::kMapGray, Hot = binding::kMapHot, Viridis = binding::kMapViridis };

struct ViewState {
  std::array<int, 3> voxel{0, 0, 0};  // selected voxel: correspondence sample, slice positions
  int pair = 0;
  bool grid = false;
  AtlasMode atlas_mode = AtlasMode::Measured;
  float atlas_zoom = 0;               // window pixels per atlas texel (0: fit)
  std::array<float, 2> atlas_pan{0, 0};  // atlas texel at the area's lower-left corner
  ColourMap colour_map = ColourMap::Hot;
  float level = 0.5f, width = 1.0f;   // window [level ∓ width/2] · max
  int mip_axis = 2;
  double corr_ms = 0;                 // device time of the last correspondence pass
};

class Views {
 public:
  Views();
  // The correspondence pass for the selected voxel (into the projector's target), then
  // its false-colour image.
  void draw_correspondence(GlpetSession& s, ViewState& st, int win_w, int win_h);
  void draw_atlas(GlpetSession& s, ViewState& st, int win_w, int win_h);
  void draw_slices(GlpetSession& s, const ViewState& st, int win_w, int win_h);
  // Where the correspondence image was drawn last (readout under the mouse).
  const Placement& correspondence_placement() const { return corr_place_; }
  // Atlas placement at the current zoom/pan: window → atlas texel.
  Placement atlas_fit(const GlpetSession& s, const ViewState& st, int win_w, int win_h) const;

 private:
  gl::VertexArray vao_;
  gl::Query timer_;
  Placement corr_place_;
};

}  // namespace tomo::viewer
