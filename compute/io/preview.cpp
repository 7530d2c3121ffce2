// Readable previews: panels upsampled by an integer factor, a title and a colour bar drawn
// with stb_easy_font. That font is a Debian library the project already uses (libstb-dev),
// needs no font file at run time (CI and the GPU machine have none installed) and its
// glyphs are rectangles, so they stay sharp at any integer scale.
#include "compute/io/preview.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "compute/core/error.hpp"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

namespace tomo {
namespace {

constexpr unsigned char kBackground[3] = {24, 24, 24};
constexpr unsigned char kText[3] = {235, 235, 235};
constexpr unsigned char kFrame[3] = {96, 96, 96};
constexpr int kTextScale = 2;  // stb_easy_font glyphs are ~7 font pixels high: 14 px on screen
constexpr int kMargin = 16, kGap = 24, kBarWidth = 24;

// stb_easy_font indexes its tables by (char - 32): keep to printable ASCII.
std::string printable(std::string_view text) {
  std::string s(text);
  for (char& c : s)
    if (c < 32 || c > 126) c = '?';
  return s;
}

void fill_rect(RgbImage& img, int x0, int y0, int x1, int y1, const unsigned char c[3]) {
  x0 = std::max(x0, 0), y0 = std::max(y0, 0);
  x1 = std::min(x1, img.width), y1 = std::min(y1, img.height);
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) std::copy_n(c, 3, &img.rgb[(static_cast<std::size_t>(y) * img.width + x) * 3]);
}

// Three significant digits; values below 1e-6 of the window's magnitude (a sum's rounding
// residue, 8e-17 next to 1e3) print as 0.
std::string format_value(float v, float lo, float hi) {
  if (std::fabs(v) < 1e-6f * std::max(std::fabs(lo), std::fabs(hi))) v = 0.0f;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", static_cast<double>(v));
  return buf;
}

// The window over the finite values of all panels when the label gives none.
std::pair<float, float> window_of(const std::vector<PreviewPanel>& panels, const PreviewLabel& label) {
  if (label.lo != label.hi) return {label.lo, label.hi};
  float mn = std::numeric_limits<float>::infinity(), mx = -mn;
  for (const auto& p : panels)
    for (float x : p.image.pixels)
      if (std::isfinite(x)) mn = std::min(mn, x), mx = std::max(mx, x);
  if (!(mn <= mx)) return {0.0f, 0.0f};
  return {mn, mx};
}

// Panel `img` through the colour map, each pixel as a k x k block at (x0, y0), framed.
void blit(RgbImage& canvas, const Image2D& img, const PreviewLabel& label, float lo, float hi, int k, int x0, int y0) {
  fill_rect(canvas, x0 - 1, y0 - 1, x0 + img.width * k + 1, y0 + img.height * k + 1, kFrame);
  // lo == hi here means a constant image: colorize's auto window draws it in the middle colour.
  const std::vector<unsigned char> rgb = colorize(img, label.map, lo, hi);
  for (int r = 0; r < img.height * k; ++r) {
    unsigned char* row = &canvas.rgb[(static_cast<std::size_t>(y0 + r) * canvas.width + x0) * 3];
    const unsigned char* src = &rgb[static_cast<std::size_t>(r / k) * img.width * 3];
    for (int c = 0; c < img.width * k; ++c) std::copy_n(src + (c / k) * 3, 3, row + c * 3);
  }
}

// The colour bar (hi at the top) with ticks and labels at both ends and the middle.
void draw_colour_bar(RgbImage& canvas, const PreviewLabel& label, float lo, float hi, int x0, int y0, int h) {
  Image2D ramp{1, h, std::vector<float>(static_cast<std::size_t>(h))};
  for (int r = 0; r < h; ++r) ramp.pixels[r] = h > 1 ? 1.0f - static_cast<float>(r) / (h - 1) : 0.5f;
  const std::vector<unsigned char> rgb = colorize(ramp, label.map, 0.0f, 1.0f);
  fill_rect(canvas, x0 - 1, y0 - 1, x0 + kBarWidth + 1, y0 + h + 1, kFrame);
  for (int r = 0; r < h; ++r) fill_rect(canvas, x0, y0 + r, x0 + kBarWidth, y0 + r + 1, &rgb[3 * r]);
  const int th = text_height(kTextScale);
  const float values[3] = {hi, 0.5f * (lo + hi), lo};
  const int ys[3] = {y0, y0 + h / 2, y0 + h - 1};
  for (int i = 0; i < 3; ++i) {
    fill_rect(canvas, x0 + kBarWidth, ys[i], x0 + kBarWidth + 6, ys[i] + 2, kText);
    const int ty = std::clamp(ys[i] - th / 2, 0, canvas.height - th);
    draw_text(canvas, x0 + kBarWidth + 10, ty, format_value(values[i], lo, hi), kTextScale, kText);
  }
}

int bar_label_width(float lo, float hi) {
  int w = 0;
  for (float v : {lo, hi, 0.5f * (lo + hi)}) w = std::max(w, text_width(format_value(v, lo, hi), kTextScale));
  return w;
}

}  // namespace

int preview_scale(int long_side) {
  if (long_side < 1) return 1;
  return std::max(1, (kPreviewMinLongSide + long_side - 1) / long_side);
}

int preview_panel_scale(int width, int height) {
  const int lo = std::max(1, std::min(width, height)), hi = std::max(1, std::max(width, height));
  const int k = preview_scale(hi);
  if (lo * k >= kPreviewMinLongSide) return k;
  return std::max(k, std::min(preview_scale(lo), kPreviewMaxLongSide / hi));
}

int text_width(std::string_view text, int scale) {
  std::string s = printable(text);
  return stb_easy_font_width(s.data()) * scale;
}

int text_height(int scale) { return 10 * scale; }  // cap height 7 plus descenders (g, p, y)

void draw_text(RgbImage& canvas, int x, int y, std::string_view text, int scale, const unsigned char colour[3]) {
  std::string s = printable(text);
  std::vector<float> quads(s.size() * 256 + 64);  // ~270 bytes a glyph on average; stb truncates beyond
  const int n = stb_easy_font_print(0, 0, s.data(), nullptr, quads.data(), static_cast<int>(quads.size() * 4));
  for (int q = 0; q < n; ++q) {
    const float* v = &quads[static_cast<std::size_t>(q) * 16];  // 4 vertices of x, y, z, colour
    const float qx0 = std::min(v[0], v[4]), qx1 = std::max(v[4], v[8]);
    const float qy0 = std::min(v[1], v[9]), qy1 = std::max(v[5], v[9]);
    fill_rect(canvas, x + static_cast<int>(qx0) * scale, y + static_cast<int>(qy0) * scale,
              x + static_cast<int>(qx1) * scale, y + static_cast<int>(qy1) * scale, colour);
  }
}

std::string preview_title(const PreviewLabel& label, float lo, float hi) {
  std::string t = label.quantity.empty() ? "value" : label.quantity;
  if (!label.unit.empty()) t += " [" + label.unit + "]";
  if (!label.view.empty()) t += ", " + label.view;
  t += ", window [" + format_value(lo, lo, hi) + ", " + format_value(hi, lo, hi) + "]";
  return printable(t);
}

RgbImage render_preview(const std::vector<PreviewPanel>& panels, const PreviewLabel& label) {
  if (panels.empty()) throw Error("render_preview: no panels");
  int wmax = 0, hmax = 0, caption_w = 0;
  bool captions = false;
  for (const auto& p : panels) {
    if (p.image.width < 1 || p.image.height < 1 ||
        p.image.pixels.size() != static_cast<std::size_t>(p.image.width) * p.image.height)
      throw Error("render_preview: a panel's pixel count does not match its size");
    wmax = std::max(wmax, p.image.width), hmax = std::max(hmax, p.image.height);
    captions = captions || !p.caption.empty();
    caption_w = std::max(caption_w, text_width(p.caption, kTextScale));
  }
  const int n = static_cast<int>(panels.size());
  // A row for up to three panels (MIPs, slices); a grid of about 4:3 for more (atlases).
  const int cols = n <= 3 ? n : std::clamp(static_cast<int>(std::lround(std::sqrt(n * 4.0 / 3.0 * hmax / wmax))), 1, n);
  const int rows = (n + cols - 1) / cols;
  // Panels at least as wide as their captions, so a row of three reads as three.
  const int k = std::max(preview_panel_scale(cols * wmax, rows * hmax), (caption_w + wmax - 1) / wmax);
  const int th = text_height(kTextScale);
  const int cap_h = captions ? th + 8 : 0;
  const int cell_w = std::max(wmax * k, caption_w), cell_h = cap_h + hmax * k;
  const int area_w = cols * cell_w + (cols - 1) * kGap, area_h = rows * cell_h + (rows - 1) * kGap;

  const auto [lo, hi] = window_of(panels, label);
  const std::string title = preview_title(label, lo, hi);
  const int top = kMargin + th + 12;
  const int bar_x = kMargin + area_w + 24, bar_y = top + cap_h, bar_h = std::max(area_h - cap_h, 200);
  RgbImage canvas;
  canvas.width = std::max(bar_x + kBarWidth + 10 + bar_label_width(lo, hi), kMargin + text_width(title, kTextScale)) +
                 kMargin;
  canvas.height = std::max(std::max(top + area_h, bar_y + bar_h) + kMargin, kPreviewMinLongSide);
  canvas.width = std::max(canvas.width, kPreviewMinLongSide);
  canvas.rgb.resize(static_cast<std::size_t>(canvas.width) * canvas.height * 3);
  fill_rect(canvas, 0, 0, canvas.width, canvas.height, kBackground);
  draw_text(canvas, kMargin, kMargin, title, kTextScale, kText);
  for (int i = 0; i < n; ++i) {
    const int cx = kMargin + (i % cols) * (cell_w + kGap), cy = top + (i / cols) * (cell_h + kGap);
    draw_text(canvas, cx, cy, panels[i].caption, kTextScale, kText);
    blit(canvas, panels[i].image, label, lo, hi, k, cx, cy + cap_h);
  }
  draw_colour_bar(canvas, label, lo, hi, bar_x, bar_y, bar_h);
  return canvas;
}

void write_preview(const std::filesystem::path& path, const std::vector<PreviewPanel>& panels,
                   const PreviewLabel& label) {
  write_rgb_png(path, render_preview(panels, label));
}

void write_rgb_png(const std::filesystem::path& path, const RgbImage& img) {
  write_png_rgb(path, img.width, img.height, img.rgb);
}

RgbImage picture_preview(const RgbImage& picture, const std::string& title) {
  if (picture.width < 1 || picture.height < 1 ||
      picture.rgb.size() != static_cast<std::size_t>(picture.width) * picture.height * 3)
    throw Error("picture_preview: the pixel count does not match the size");
  const int k = preview_panel_scale(picture.width, picture.height);
  const int th = text_height(kTextScale), top = kMargin + th + 12;
  RgbImage canvas;
  canvas.width = std::max({picture.width * k + 2 * kMargin, text_width(title, kTextScale) + 2 * kMargin, kPreviewMinLongSide});
  canvas.height = std::max(top + picture.height * k + kMargin, kPreviewMinLongSide);
  canvas.rgb.resize(static_cast<std::size_t>(canvas.width) * canvas.height * 3);
  fill_rect(canvas, 0, 0, canvas.width, canvas.height, kBackground);
  draw_text(canvas, kMargin, kMargin, printable(title), kTextScale, kText);
  const int x0 = (canvas.width - picture.width * k) / 2, y0 = top + (canvas.height - top - picture.height * k - kMargin) / 2;
  fill_rect(canvas, x0 - 1, y0 - 1, x0 + picture.width * k + 1, y0 + picture.height * k + 1, kFrame);
  for (int r = 0; r < picture.height * k; ++r)
    for (int c = 0; c < picture.width * k; ++c)
      std::copy_n(&picture.rgb[(static_cast<std::size_t>(r / k) * picture.width + c / k) * 3], 3,
                  &canvas.rgb[(static_cast<std::size_t>(y0 + r) * canvas.width + x0 + c) * 3]);
  return canvas;
}

void write_picture_preview(const std::filesystem::path& path, const RgbImage& picture, const std::string& title) {
  write_rgb_png(path, picture_preview(picture, title));
}

std::vector<PreviewPanel> mip_panels(const VolumeF& v) {
  return {{mip(v, 0), "MIP along x: y right, z up"},
          {mip(v, 1), "MIP along y: x right, z up"},
          {mip(v, 2), "MIP along z: x right, y up"}};
}

PreviewPanel slice_panel(const VolumeF& v, int axis, int index) {
  static const char* const kPlane[3] = {": y right, z up", ": x right, z up", ": x right, y up"};
  static const char kAxis[3] = {'x', 'y', 'z'};
  Image2D img = slice(v, axis, index);  // checks axis and index
  return {std::move(img), std::string("slice ") + kAxis[axis] + " = " + std::to_string(index) + kPlane[axis]};
}

std::vector<PreviewPanel> central_slice_panels(const VolumeF& v) {
  const auto& d = v.grid.dims;
  return {slice_panel(v, 0, d[0] / 2), slice_panel(v, 1, d[1] / 2), slice_panel(v, 2, d[2] / 2)};
}

}  // namespace tomo
