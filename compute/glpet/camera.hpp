// What the GL raster pass of the correspondence image needs for one voxel sample
// ([Toth2010] §II.A): view (translate, mirror, rotate) and shear+perspective matrices,
// viewport, the secondary quad with its index colours, and the pixel→world map.
// Pure geometry, no GL: renderer/glpet uploads these as uniforms.
#pragma once
#include <array>

#include "compute/glpet/line_set.hpp"

namespace tomo::glpet {

using Mat4 = std::array<double, 16>;  // column-major (GL order): m[col*4 + row]

struct RasterCamera {
  int primary = 0, secondary = 1;  // indices in pair.modules
  int width = 0, height = 0;       // viewport R·N_a × R·N_t
  // view: world → camera = rotate ∘ mirror ∘ translate(−v). Camera x = primary axis_a,
  // y = primary axis_t, and −z points from v towards the primary plane. The mirroring
  // p ↦ −p is included (it applies to the secondary quad, the only thing drawn).
  Mat4 view{};
  // projection: paper's shear (centre of the window onto −z) then perspective mapping
  // the primary window to NDC [−1,1]², near f and far b bracketing the secondary quad.
  Mat4 projection{};
  Mat4 view_projection{};  // projection·view
  double near_mm = 0, far_mm = 0;
  // Secondary quad in draw order (corners local (0,0), (w,0), (w,h), (0,h)), world
  // space (unmirrored: the attribute to interpolate into y2), and the paper's colours
  // (1,1), (N_a+1,1), (N_a+1,N_t+1), (1,N_t+1): r = int(R)−1, s = int(G)−1.
  std::array<Vec3, 4> secondary_corners{};
  std::array<std::array<double, 2>, 4> secondary_colours{};
  // Pixel (X,Y) → world y1 = pixel_origin + (X+½)·pixel_du + (Y+½)·pixel_dv (GL's
  // gl_FragCoord.xy = (X+½, Y+½): y1 = pixel_origin + fragcoord.x·du + fragcoord.y·dv).
  Vec3 pixel_origin{}, pixel_du{}, pixel_dv{};
  Vec3 primary_normal{};      // for cosθ
  double pixel_area = 0;      // ΔA (mm²)
  Vec3 v{};
};

RasterCamera raster_camera(const ModulePair& pair, const Vec3& v, int R);

// Applies a matrix to a point (w = 1) and returns clip coordinates.
std::array<double, 4> transform(const Mat4& m, const Vec3& p);
Mat4 multiply(const Mat4& a, const Mat4& b);  // a·b
std::array<float, 16> to_float(const Mat4& m);

}  // namespace tomo::glpet
