// Axes for the plot previews (curves over time, data pictures): a frame, ticks at 1-2-5
// steps with their numbers on both axes, and the axis labels, drawn with the previews' font.
#pragma once
#include <string>
#include <vector>

#include "compute/io/preview.hpp"

namespace tomo {

// The plot area in pixels (y0 at the top) and the data ranges it shows.
struct PlotArea {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  double xlo = 0, xhi = 1, ylo = 0, yhi = 1;
  double px(double x) const { return x0 + (x - xlo) / (xhi - xlo) * (x1 - x0); }
  double py(double y) const { return y1 - (y - ylo) / (yhi - ylo) * (y1 - y0); }
};

// Round values (1, 2 or 5 times a power of ten apart) within [lo, hi], at most about
// `max_count` of them; empty when the range is not finite and increasing.
std::vector<double> nice_ticks(double lo, double hi, int max_count);

// Frame, ticks and their numbers under the x axis and left of the y axis, `x_label` centred
// below the numbers and `y_label` above the top left corner, in `ink`.
void draw_plot_axes(RgbImage& canvas, const PlotArea& area, const std::string& x_label, const std::string& y_label,
                    const unsigned char ink[3]);

// A data picture (one value a pixel, e.g. time samples x detectors) as a plot: the image
// through label.map in the label's window (auto when lo == hi), upsampled by
// preview_panel_scale, framed by axes whose ranges are [xlo, xhi] across and [ylo, yhi] up,
// the title (preview_title) above; >= 512 px both ways.
struct ImageAxes {
  std::string x_label;
  double xlo = 0, xhi = 1;
  std::string y_label;
  double ylo = 0, yhi = 1;
};
RgbImage image_plot(const Image2D& image, const PreviewLabel& label, const ImageAxes& axes);

// Text height and the margins a plot leaves for its numbers and labels, in pixels.
inline constexpr int kPlotTextScale = 2;
inline constexpr int kPlotLeftMargin = 110;   // tick numbers left of the y axis
inline constexpr int kPlotBelow = 56;          // tick numbers and the x label under the x axis
inline constexpr int kPlotAbove = 30;          // the y label over the area

}  // namespace tomo
