// Where the viewer puts things in its window, and the CPU twins of its colour mappings:
// shared by the viewer and its tests, so a screenshot can be checked pixel by pixel
// against a headless render put through the same mapping.
#pragma once
#include <array>
#include <cstdint>

#include "compute/glpet/geometry.hpp"
#include "compute/glpet/projector.hpp"

namespace tomo::viewer {

inline constexpr int kPanelWidth = 330;  // left side panel (Dear ImGui) in window pixels

// An image drawn at an integer scale with nearest sampling. Window pixels, GL convention:
// (x, y) is the lower-left corner, y grows upwards; image pixel (u, v) (v = 0 the bottom
// row) covers [x + u·scale, x + (u+1)·scale) × [y + v·scale, y + (v+1)·scale).
struct Placement {
  int x = 0, y = 0, scale = 1;
  int width = 0, height = 0;  // image size in image pixels
};

// The area right of the panel.
struct Area {
  int x = 0, y = 0, width = 0, height = 0;
};
Area image_area(int window_width, int window_height);
// The largest integer scale (>= 1) that fits, centred.
Placement fit(const Area& area, int width, int height, int margin = 8);

// Volume view: slices perpendicular to axes 2 (x-y), 1 (x-z), 0 (y-z) and a MIP along
// `mip_axis`, in a 2×2 grid sharing one integer scale. Panel sizes follow tomo::slice().
std::array<Placement, 4> volume_layout(const Area& area, const std::array<int, 3>& dims, int mip_axis);
// Axis and image size of panel `i` of volume_layout.
int volume_panel_axis(int i, int mip_axis);

// Reference weight of the correspondence colour: the largest a = T·Δω/(2π) a line can
// have for sample v (T = 1, perpendicular to the primary module): ΔA / (2π d²).
double correspondence_weight_ref(const glpet::ModulePair& pair, const Vec3& v, int R);

// [Toth2010] Fig. 8 in false colour: r → hue, s → value, weight → brightness; misses black.
// The CPU twin of correspondence_colour() in shaders/viewer/colour.glsl.
std::array<float, 3> correspondence_colour(const glpet::CorrespondencePixel& px, int n_a, int n_t, double weight_ref);
// Float colour → 8 bits as GL stores it in an 8-bit framebuffer (round to nearest).
std::uint8_t to_unorm8(float c);

}  // namespace tomo::viewer
