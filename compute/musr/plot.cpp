// A small raster plotter for the fit previews (no plotting library in the dependency list;
// points, error bars and a polyline are all these previews need); the title, axes, ticks and
// labels follow the previews' standard (compute/io/preview_plot).
#include "compute/musr/plot.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "compute/io/png.hpp"
#include "compute/io/preview_plot.hpp"
#include "compute/musr/expression.hpp"

namespace tomo::musr {
namespace {

struct Canvas {
  int w, h;
  std::vector<unsigned char> rgb;
  Canvas(int ww, int hh) : w(ww), h(hh), rgb(static_cast<std::size_t>(ww) * hh * 3, 255) {}
  void set(int x, int y, unsigned char r, unsigned char g, unsigned char b) {
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    auto* p = &rgb[(static_cast<std::size_t>(y) * w + x) * 3];
    p[0] = r;
    p[1] = g;
    p[2] = b;
  }
  void line(double x0, double y0, double x1, double y1, unsigned char r, unsigned char g, unsigned char b) {
    const int n = static_cast<int>(std::max(std::fabs(x1 - x0), std::fabs(y1 - y0))) + 1;
    if (n > 100000) return;
    for (int i = 0; i <= n; ++i) {
      const double f = static_cast<double>(i) / n;
      set(static_cast<int>(std::lround(x0 + f * (x1 - x0))), static_cast<int>(std::lround(y0 + f * (y1 - y0))), r, g, b);
    }
  }
};

struct Panel {
  int x0, y0, x1, y1;  // pixel box
  double tmin, tmax, vmin, vmax;
  double px(double t) const { return x0 + (t - tmin) / (tmax - tmin) * (x1 - x0); }
  double py(double v) const { return y1 - (v - vmin) / (vmax - vmin) * (y1 - y0); }
  PlotArea area() const { return {x0, y0, x1, y1, tmin, tmax, vmin, vmax}; }
  void zero_line(Canvas& c) const {
    if (vmin < 0 && vmax > 0) c.line(x0, py(0), x1, py(0), 160, 160, 160);
  }
};

constexpr int kWidth = 1000, kHeight = 780;
constexpr unsigned char kInk[3] = {0, 0, 0};

}  // namespace

std::vector<double> asymmetry_view(const RunBins& bins, const RunInfo& info, std::span<const double> params) {
  std::vector<double> a(bins.y.begin(), bins.y.end());
  if (info.fittype != 0) return a;
  double n0 = 1.0, tau = kMuonLifetime, bkg = info.background;
  if (info.norm_param >= 0) n0 = params[info.norm_param];
  if (info.lifetime_param >= 0) tau = params[info.lifetime_param];
  if (info.bkg_param >= 0) bkg = params[info.bkg_param];
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = info.norm_param < 0 ? 0.0 : (bins.y[k] - bkg) / (n0 * std::exp(-bins.t[k] / tau)) - 1.0;
  return a;
}

void write_fourier_plot(const std::filesystem::path& path, const FourierSpectrum& f, const FourierSettings& s,
                        const std::string& run_name) {
  if (f.x.size() < 2) return;
  const int height = 560;
  Canvas c(kWidth, height);
  const int title_h = 16 + text_height(kPlotTextScale);
  Panel p{kPlotLeftMargin, title_h + kPlotAbove + 8, kWidth - 30, height - kPlotBelow, f.x.front(), f.x.back(), 0, 0};
  // The curves the `plot` entry asks for: (values, colour).
  std::vector<std::pair<std::vector<double>, std::array<unsigned char, 3>>> curves;
  std::vector<double> mag(f.x.size()), ph(f.x.size());
  for (std::size_t i = 0; i < f.x.size(); ++i) {
    mag[i] = std::hypot(f.re[i], f.im[i]);
    ph[i] = std::atan2(f.im[i], f.re[i]) * 180.0 / 3.14159265358979323846;
  }
  std::string what;
  switch (s.plot) {
    case FourierPlot::real: curves.push_back({f.re, {220, 30, 30}}); what = "real part"; break;
    case FourierPlot::imag: curves.push_back({f.im, {40, 90, 200}}); what = "imaginary part"; break;
    case FourierPlot::real_and_imag:
      curves.push_back({f.re, {220, 30, 30}});
      curves.push_back({f.im, {40, 90, 200}});
      what = "real (red) and imaginary (blue) parts";
      break;
    case FourierPlot::power: curves.push_back({mag, {220, 30, 30}}); what = "power |F|"; break;
    case FourierPlot::phase: curves.push_back({ph, {220, 30, 30}}); what = "phase [deg]"; break;
  }
  double lo = 1e300, hi = -1e300;
  for (const auto& [v, col] : curves)
    for (double y : v)
      if (std::isfinite(y)) lo = std::min(lo, y), hi = std::max(hi, y);
  if (!(hi > lo)) lo = -1, hi = 1;
  p.vmin = lo - 0.05 * (hi - lo);
  p.vmax = hi + 0.05 * (hi - lo);
  p.zero_line(c);
  for (const auto& [v, col] : curves)
    for (std::size_t i = 1; i < v.size(); ++i)
      c.line(p.px(f.x[i - 1]), p.py(v[i - 1]), p.px(f.x[i]), p.py(v[i]), col[0], col[1], col[2]);
  RgbImage img{c.w, c.h, std::move(c.rgb)};
  draw_text(img, 16, 12, "run " + run_name + ": Fourier transform of the asymmetry, " + what, kPlotTextScale, kInk);
  draw_plot_axes(img, p.area(), std::string("field / frequency [") + unit_name(s.unit) + "]", what, kInk);
  write_png_rgb(path, img.width, img.height, img.rgb);
}

void write_run_plot(const std::filesystem::path& path, const RunBins& all, const RunInfo& info,
                    std::span<const double> params, const PlotView& view) {
  // The PLOT block's time range: the bins within it (all of them when it leaves none).
  RunBins bins;
  if (view.t) {
    for (std::size_t k = 0; k < all.t.size(); ++k) {
      if (all.t[k] < view.t->first || all.t[k] > view.t->second) continue;
      bins.t.push_back(all.t[k]);
      bins.y.push_back(all.y[k]);
      bins.sigma.push_back(all.sigma[k]);
    }
  }
  if (bins.t.empty()) {
    bins.t = all.t;
    bins.y = all.y;
    bins.sigma = all.sigma;
  }
  bins.model = all.model;
  const std::size_t n = bins.t.size();
  if (n == 0) return;
  ProgramEvaluator ev(bins.model);
  ev.prepare(params, false);
  // Asymmetry view: single histograms through the lifetime correction.
  double n0 = 1.0, tau = kMuonLifetime, bkg = info.background;
  if (info.fittype == 0) {
    if (info.norm_param >= 0) n0 = params[info.norm_param];
    if (info.lifetime_param >= 0) tau = params[info.lifetime_param];
    if (info.bkg_param >= 0) bkg = params[info.bkg_param];
  }
  auto to_asym = [&](double t, double y) {
    if (info.fittype != 0) return y;
    if (info.norm_param < 0) return 0.0;
    return (y - bkg) / (n0 * std::exp(-t / tau)) - 1.0;
  };
  auto err_asym = [&](double t, double s) { return info.fittype != 0 ? s : s / (n0 * std::exp(-t / tau)); };
  // Rebin for display so that points stay readable.
  const std::size_t group = std::max<std::size_t>(1, (n + 499) / 500);
  struct Pt { double t, a, e, r; };
  std::vector<Pt> pts;
  for (std::size_t k = 0; k < n; k += group) {
    double st = 0, sa = 0, sw = 0, sr = 0;
    std::size_t m = 0;
    for (std::size_t j = k; j < std::min(n, k + group); ++j, ++m) {
      const double e = err_asym(bins.t[j], bins.sigma[j]);
      const double w = 1.0 / (e * e);
      st += bins.t[j];
      sa += w * to_asym(bins.t[j], bins.y[j]);
      sw += w;
      sr += (bins.y[j] - ev.value(bins.t[j])) / bins.sigma[j];
    }
    pts.push_back({st / m, sa / sw, 1.0 / std::sqrt(sw), sr / std::sqrt(static_cast<double>(m))});
  }
  Canvas c(kWidth, kHeight);
  const int title_h = 16 + text_height(kPlotTextScale);
  Panel top{kPlotLeftMargin, title_h + kPlotAbove + 8, kWidth - 30, 460, bins.t.front(), bins.t.back(), 0, 0};
  double lo = 1e300, hi = -1e300;
  for (const auto& p : pts) {
    if (!std::isfinite(p.a) || !std::isfinite(p.e)) continue;
    lo = std::min(lo, p.a - p.e);
    hi = std::max(hi, p.a + p.e);
  }
  if (!(hi > lo)) {
    lo = -1;
    hi = 1;
  }
  top.vmin = lo - 0.05 * (hi - lo);
  top.vmax = hi + 0.05 * (hi - lo);
  if (view.y) {
    top.vmin = view.y->first;
    top.vmax = view.y->second;
  }
  if (!(top.tmax > top.tmin)) top.tmax = top.tmin + 1;
  top.zero_line(c);
  // Points, bars and curve stay inside the panel (a PLOT block's range may cut them).
  auto inside = [&](double py) { return std::clamp(py, static_cast<double>(top.y0), static_cast<double>(top.y1)); };
  for (const auto& p : pts) {
    if (!std::isfinite(p.a) || p.a < top.vmin || p.a > top.vmax) continue;
    c.line(top.px(p.t), inside(top.py(p.a - p.e)), top.px(p.t), inside(top.py(p.a + p.e)), 170, 170, 170);
    for (int d = -1; d <= 1; ++d) c.line(top.px(p.t) - 1, top.py(p.a) + d, top.px(p.t) + 1, top.py(p.a) + d, 30, 30, 30);
  }
  double px = -1, py = 0;
  for (int x = top.x0; x <= top.x1; ++x) {
    const double t = top.tmin + (x - top.x0) * (top.tmax - top.tmin) / (top.x1 - top.x0);
    const double a = to_asym(t, ev.value(t));
    const double y = inside(top.py(a));
    if (px >= 0 && std::isfinite(y)) c.line(px, py, x, y, 220, 30, 30);
    px = x;
    py = y;
  }
  Panel bot{kPlotLeftMargin, top.y1 + kPlotBelow + kPlotAbove, kWidth - 30, kHeight - kPlotBelow, top.tmin, top.tmax, -5, 5};
  bot.zero_line(c);
  c.line(bot.x0, bot.py(3), bot.x1, bot.py(3), 220, 220, 220);
  c.line(bot.x0, bot.py(-3), bot.x1, bot.py(-3), 220, 220, 220);
  for (const auto& p : pts) {
    const double r = std::clamp(p.r, -5.0, 5.0);
    c.line(bot.px(p.t), bot.py(0), bot.px(p.t), bot.py(r), 40, 90, 200);
  }
  RgbImage img{c.w, c.h, std::move(c.rgb)};
  // What the plotted values are: μ⁻ runs are fitted as counts, x-y runs in their own units.
  const std::string y_name = info.fittype == 4 ? "counts" : info.fittype == 8 ? "y" : "asymmetry";
  const std::string what = info.fittype == 0 ? "asymmetry (lifetime-corrected single histogram)"
                           : info.fittype == 4 ? "counts (mu minus)"
                                               : y_name;
  draw_text(img, 16, 12, "run " + info.name + ": " + what + ", data (grey, error bars) and fit (red)",
            kPlotTextScale, kInk);
  draw_plot_axes(img, top.area(), "", y_name, kInk);
  draw_plot_axes(img, bot.area(), info.fittype == 8 ? "x" : "t [us]", "normalised residual (y - fit) / sigma", kInk);
  write_png_rgb(path, img.width, img.height, img.rgb);
}

}  // namespace tomo::musr
