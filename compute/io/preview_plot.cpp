#include "compute/io/preview_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tomo {
namespace {

void fill(RgbImage& c, int x0, int y0, int x1, int y1, const unsigned char ink[3]) {
  for (int y = std::max(y0, 0); y < std::min(y1, c.height); ++y)
    for (int x = std::max(x0, 0); x < std::min(x1, c.width); ++x)
      std::copy_n(ink, 3, &c.rgb[(static_cast<std::size_t>(y) * c.width + x) * 3]);
}

std::string tick_text(double v, double step) {
  if (std::fabs(v) < 1e-9 * step) v = 0;  // 0, not 1.4e-17
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int max_count) {
  std::vector<double> out;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo) || max_count < 2) return out;
  const double raw = (hi - lo) / (max_count - 1);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * p;
  for (double m : {1.0, 2.0, 5.0})
    if (m * p >= raw) {
      step = m * p;
      break;
    }
  for (double i = std::ceil(lo / step - 1e-9); i * step <= hi + 1e-9 * step && out.size() < 64; i += 1) out.push_back(i * step);
  return out;
}

void draw_plot_axes(RgbImage& c, const PlotArea& a, const std::string& x_label, const std::string& y_label,
                    const unsigned char ink[3]) {
  fill(c, a.x0, a.y0, a.x1 + 1, a.y0 + 1, ink);
  fill(c, a.x0, a.y1, a.x1 + 1, a.y1 + 1, ink);
  fill(c, a.x0, a.y0, a.x0 + 1, a.y1 + 1, ink);
  fill(c, a.x1, a.y0, a.x1 + 1, a.y1 + 1, ink);
  const int th = text_height(kPlotTextScale);
  // A range may run backwards (rows counted from the top): ticks over its extent.
  const auto xt = nice_ticks(std::min(a.xlo, a.xhi), std::max(a.xlo, a.xhi), std::max(2, (a.x1 - a.x0) / 120));
  for (double t : xt) {
    const int x = static_cast<int>(std::lround(a.px(t)));
    fill(c, x, a.y1 - 6, x + 1, a.y1 + 6, ink);
    const std::string s = tick_text(t, xt.size() > 1 ? xt[1] - xt[0] : 1);
    draw_text(c, x - text_width(s, kPlotTextScale) / 2, a.y1 + 10, s, kPlotTextScale, ink);
  }
  const auto yt = nice_ticks(std::min(a.ylo, a.yhi), std::max(a.ylo, a.yhi), std::max(2, (a.y1 - a.y0) / 60));
  for (double t : yt) {
    const int y = static_cast<int>(std::lround(a.py(t)));
    fill(c, a.x0 - 6, y, a.x0 + 6, y + 1, ink);
    const std::string s = tick_text(t, yt.size() > 1 ? yt[1] - yt[0] : 1);
    draw_text(c, a.x0 - 10 - text_width(s, kPlotTextScale), y - th / 3, s, kPlotTextScale, ink);
  }
  draw_text(c, (a.x0 + a.x1 - text_width(x_label, kPlotTextScale)) / 2, a.y1 + 14 + th, x_label, kPlotTextScale, ink);
  draw_text(c, a.x0, a.y0 - th - 6, y_label, kPlotTextScale, ink);
}

RgbImage image_plot(const Image2D& image, const PreviewLabel& label, const ImageAxes& axes) {
  const int k = preview_panel_scale(image.width, image.height);
  const int th = text_height(kPlotTextScale);
  float lo = label.lo, hi = label.hi;
  if (lo == hi) {
    lo = INFINITY, hi = -INFINITY;
    for (float v : image.pixels)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    if (!(lo <= hi)) lo = hi = 0;
  }
  const std::string title = preview_title(label, lo, hi);
  const int top = 16 + th + 12 + kPlotAbove;
  RgbImage c;
  c.width = std::max({kPlotLeftMargin + image.width * k + 30, 32 + text_width(title, kPlotTextScale), kPreviewMinLongSide});
  c.height = std::max(top + image.height * k + kPlotBelow, kPreviewMinLongSide);
  c.rgb.assign(static_cast<std::size_t>(c.width) * c.height * 3, 24);
  const unsigned char ink[3] = {235, 235, 235};
  draw_text(c, 16, 16, title, kPlotTextScale, ink);
  const std::vector<unsigned char> rgb = colorize(image, label.map, lo, hi);
  const int x0 = kPlotLeftMargin, y0 = top;
  for (int r = 0; r < image.height * k; ++r)
    for (int col = 0; col < image.width * k; ++col)
      std::copy_n(&rgb[(static_cast<std::size_t>(r / k) * image.width + col / k) * 3], 3,
                  &c.rgb[(static_cast<std::size_t>(y0 + r) * c.width + x0 + col) * 3]);
  const PlotArea area{x0 - 1, y0 - 1, x0 + image.width * k, y0 + image.height * k, axes.xlo, axes.xhi, axes.ylo, axes.yhi};
  draw_plot_axes(c, area, axes.x_label, axes.y_label, ink);
  return c;
}

}  // namespace tomo
