// glpet raster passes: per-layer cameras (one voxel sample per layer of the 2D-array
// correspondence target) and the LOR texel of a correspondence pixel (docs/glpet.md §2.5).
#include "bindings/glpet.glsl"
struct Camera {
  mat4 view_projection;  // glpet::raster_camera(): projection·view ([Toth2010] §II.A)
  vec4 v_primary;        // sample position (mm) and the primary module (0/1) as a float
};
layout(std430, binding = GLPET_CAMERAS) readonly buffer Cameras { Camera cams[]; };
uniform int u_first_record;  // record of layer 0 of this batch (= first voxel · N)
uniform int u_N;
uniform int u_R;
uniform int u_na;
uniform int u_nt;

// Atlas texel (u, v) of pixel (X, Y) whose secondary detector is (r, s), first-module order.
ivec2 atlas_texel(int X, int Y, int r, int s, int primary) {
  int p = X / u_R, q = Y / u_R;
  int i0 = primary == 0 ? p : r, j0 = primary == 0 ? q : s;
  int i1 = primary == 0 ? r : p, j1 = primary == 0 ? s : q;
  return ivec2(i0 * u_na + i1, j0 * u_nt + j1);
}
