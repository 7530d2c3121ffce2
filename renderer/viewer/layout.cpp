#include "renderer/viewer/layout.hpp"

#include <algorithm>
#include <cmath>

#include "compute/glpet/line_set.hpp"

namespace tomo::viewer {

Area image_area(int w, int h) { return {kPanelWidth, 0, std::max(1, w - kPanelWidth), std::max(1, h)}; }

Placement fit(const Area& a, int width, int height, int margin) {
  Placement p;
  p.width = width;
  p.height = height;
  const int sx = (a.width - 2 * margin) / std::max(1, width), sy = (a.height - 2 * margin) / std::max(1, height);
  p.scale = std::max(1, std::min(sx, sy));
  p.x = a.x + (a.width - p.scale * width) / 2;
  p.y = a.y + (a.height - p.scale * height) / 2;
  return p;
}

int volume_panel_axis(int i, int mip_axis) { return i < 3 ? 2 - i : mip_axis; }

std::array<Placement, 4> volume_layout(const Area& a, const std::array<int, 3>& d, int mip_axis) {
  auto size = [&](int axis) -> std::array<int, 2> {  // tomo::slice(): columns, rows
    switch (axis) {
      case 0: return {d[1], d[2]};
      case 1: return {d[0], d[2]};
      default: return {d[0], d[1]};
    }
  };
  const int cw = a.width / 2, ch = a.height / 2, margin = 6;
  int scale = 1 << 20;
  for (int i = 0; i < 4; ++i) {
    const auto s = size(volume_panel_axis(i, mip_axis));
    scale = std::min({scale, (cw - 2 * margin) / std::max(1, s[0]), (ch - 2 * margin) / std::max(1, s[1])});
  }
  scale = std::max(1, scale);
  std::array<Placement, 4> out;
  for (int i = 0; i < 4; ++i) {
    const auto s = size(volume_panel_axis(i, mip_axis));
    const int cx = a.x + (i % 2) * cw, cy = a.y + (i < 2 ? ch : 0);  // top row: panels 0, 1
    out[i] = {cx + (cw - scale * s[0]) / 2, cy + (ch - scale * s[1]) / 2, scale, s[0], s[1]};
  }
  return out;
}

double correspondence_weight_ref(const glpet::ModulePair& pair, const Vec3& v, int R) {
  const glpet::Module& m = pair.modules[glpet::primary_module(pair, v)];
  const double d = std::max(m.distance(v), 1e-6);
  return m.pitch_a * m.pitch_t / (double(R) * R) / (2.0 * M_PI * d * d);
}

namespace {
// Hue circle at S = V = 1 (as compute/io/png.cpp's hsv map): red → yellow → … → magenta.
std::array<float, 3> hue_rgb(float h) {
  const float H = 6.0f * h;
  auto ch = [&](float n) {
    const float k = std::fmod(n + H, 6.0f);
    return 1.0f - std::max(0.0f, std::min({k, 4.0f - k, 1.0f}));
  };
  return {ch(5), ch(3), ch(1)};
}
}  // namespace

std::array<float, 3> correspondence_colour(const glpet::CorrespondencePixel& px, int n_a, int n_t, double weight_ref) {
  if (px.r < 0) return {0, 0, 0};
  const float hue = (5.0f / 6.0f) * (px.r + 0.5f) / float(n_a);
  const float value = 0.35f + 0.65f * (px.s + 0.5f) / float(n_t);
  const float b = std::sqrt(std::clamp(px.weight / float(weight_ref), 0.0f, 1.0f));
  const float k = value * (0.2f + 0.8f * b);
  const auto c = hue_rgb(hue);
  return {c[0] * k, c[1] * k, c[2] * k};
}

std::uint8_t to_unorm8(float c) { return std::uint8_t(std::lround(std::clamp(c, 0.0f, 1.0f) * 255.0f)); }

}  // namespace tomo::viewer
