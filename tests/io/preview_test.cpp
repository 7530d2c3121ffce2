// Previews: upsampling to >= 512 px by whole pixels, the shared window, the colour bar's
// ends, the title's text actually drawn, and non-ASCII text drawn as '?' (no crash).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>

#include "compute/io/preview.hpp"
#include "compute/io/preview_plot.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/plot.hpp"
#include "compute/oat/images.hpp"
#include "compute/safir/output.hpp"
#include "tests/support/temp_dir.hpp"

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image.h>
#pragma GCC diagnostic pop

namespace tomo {
namespace {

constexpr unsigned char kBackground = 24;

const unsigned char* pixel(const RgbImage& img, int x, int y) {
  return &img.rgb[(static_cast<std::size_t>(y) * img.width + x) * 3];
}

// Bounding box of the pixels that are neither background nor text grey within rows [y0, y1).
struct Box { int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1; };
Box coloured_box(const RgbImage& img, int y0, int y1, int x_max) {
  Box b;
  for (int y = y0; y < y1; ++y)
    for (int x = 0; x < x_max; ++x) {
      const unsigned char* p = pixel(img, x, y);
      const bool grey = p[0] == p[1] && p[1] == p[2] && (p[0] == kBackground || p[0] == 235 || p[0] == 96);
      if (grey) continue;
      b.x0 = std::min(b.x0, x), b.y0 = std::min(b.y0, y), b.x1 = std::max(b.x1, x), b.y1 = std::max(b.y1, y);
    }
  return b;
}

TEST(Preview, ScaleReachesTheMinimumLongSideByWholePixels) {
  EXPECT_EQ(preview_scale(24), 22);  // 24·22 = 528 >= 512, 24·21 = 504 is not
  EXPECT_EQ(preview_scale(512), 1);
  EXPECT_EQ(preview_scale(1024), 1);
  EXPECT_EQ(preview_scale(100), 6);
  EXPECT_EQ(preview_scale(0), 1);
}

TEST(Preview, SmallImageIsUpsampledNearestNeighbourWithItsWindow) {
  // A 4x2 image: values 0..7, hot map, window [0, 7].
  Image2D img{4, 2, {0, 1, 2, 3, 4, 5, 6, 7}};
  const RgbImage out = render_preview({{img, ""}}, {"activity", "a.u.", "", ColorMap::Hot, 0.0f, 7.0f});
  const int k = preview_panel_scale(4, 2);
  ASSERT_EQ(k, 256);  // the short side reaches 512 too
  // The title band is above the panel; find the panel by its colours (the hot map's 0 is black).
  const Box b = coloured_box(out, 40, out.height, 16 + 4 * k);
  ASSERT_GE(b.x1, 0);
  const auto expected = colorize(img, ColorMap::Hot, 0.0f, 7.0f);
  // Pixel (c, r) of the source covers [x0 + c·k, x0 + (c+1)·k): check every block's centre and corners.
  const int x0 = 16, y0 = b.y1 + 1 - 2 * k;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 4; ++c)
      for (int dy : {0, k / 2, k - 1})
        for (int dx : {0, k / 2, k - 1}) {
          const unsigned char* p = pixel(out, x0 + c * k + dx, y0 + r * k + dy);
          for (int ch = 0; ch < 3; ++ch)
            ASSERT_EQ(p[ch], expected[(r * 4 + c) * 3 + ch]) << "source pixel " << c << "," << r;
        }
  EXPECT_GE(std::max(out.width, out.height), kPreviewMinLongSide);
}

TEST(Preview, ColourBarRunsFromTheMapsTopToItsBottom) {
  Image2D img{8, 8, std::vector<float>(64, 0.5f)};
  img.pixels[0] = std::numeric_limits<float>::quiet_NaN();
  const RgbImage out = render_preview({{img, "panel"}}, {"x", "", "", ColorMap::Viridis, -1.0f, 1.0f});
  // The bar is the right-most column band of non-grey pixels.
  int bar_x = -1;
  for (int x = out.width - 1; x >= 0 && bar_x < 0; --x)
    for (int y = 0; y < out.height; ++y) {
      const unsigned char* p = pixel(out, x, y);
      if (!(p[0] == p[1] && p[1] == p[2])) { bar_x = x; break; }
    }
  ASSERT_GT(bar_x, 8 * preview_scale(8));
  int top = -1, bottom = -1;
  for (int y = 0; y < out.height; ++y) {
    const unsigned char* p = pixel(out, bar_x, y);
    if (!(p[0] == p[1] && p[1] == p[2])) { if (top < 0) top = y; bottom = y; }
  }
  const Image2D ends{1, 2, {1.0f, 0.0f}};
  const auto rgb = colorize(ends, ColorMap::Viridis, 0.0f, 1.0f);
  for (int ch = 0; ch < 3; ++ch) {
    EXPECT_EQ(pixel(out, bar_x, top)[ch], rgb[ch]);         // #FDE725 at the top (hi)
    EXPECT_EQ(pixel(out, bar_x, bottom)[ch], rgb[3 + ch]);  // #440154 at the bottom (lo)
  }
  EXPECT_GE(bottom - top + 1, 200);
}

TEST(Preview, TitleIsDrawnAndSaysQuantityUnitAndWindow) {
  Image2D img{16, 16, std::vector<float>(256)};
  for (int i = 0; i < 256; ++i) img.pixels[i] = static_cast<float>(i);
  const PreviewLabel label{"activity", "Bq/mm^3", "MIPs", ColorMap::Gray, 0, 0};
  EXPECT_EQ(preview_title(label, 0.0f, 255.0f), "activity [Bq/mm^3], MIPs, window [0, 255]");
  EXPECT_EQ(preview_title(label, 8.11e-17f, 1060.0f), "activity [Bq/mm^3], MIPs, window [0, 1.06e+03]");
  const RgbImage out = render_preview({{img, ""}}, label);
  int text_pixels = 0;  // the title's band: the first 16 + 20 rows
  for (int y = 16; y < 16 + text_height(2); ++y)
    for (int x = 0; x < out.width; ++x) text_pixels += pixel(out, x, y)[0] == 235;
  EXPECT_GT(text_pixels, 40 * 20);  // ~40 glyphs of >= 20 lit pixels at scale 2
  EXPECT_GE(out.width, text_width(preview_title(label, 0, 255), 2) + 32);
}

TEST(Preview, NonAsciiTextIsDrawnAsQuestionMarks) {
  EXPECT_EQ(text_width("mm⁻¹", 1), text_width("mm?????", 1));  // ⁻ and ¹ are 3 + 2 UTF-8 bytes
  RgbImage c{40, 20, std::vector<unsigned char>(40 * 20 * 3)};
  const unsigned char white[3] = {255, 255, 255};
  draw_text(c, 2, 2, "\x01\xff\n\t", 1, white);  // control and high bytes: no out-of-table reads
  draw_text(c, 30, 15, "far off the canvas", 3, white);  // clipped, not written out of bounds
  SUCCEED();
}

TEST(Preview, GridAndMipsOfAVolume) {
  VolumeF v(Grid3{{6, 5, 4}, {1, 1, 1}, {0, 0, 0}});
  for (std::size_t i = 0; i < v.data.size(); ++i) v.data[i] = static_cast<float>(i % 7);
  const auto panels = mip_panels(v);
  ASSERT_EQ(panels.size(), 3u);
  EXPECT_EQ(panels[0].image.width, 5);   // along x: y right
  EXPECT_EQ(panels[0].image.height, 4);  // z up
  EXPECT_EQ(central_slice_panels(v)[2].caption, "slice z = 2: x right, y up");
  std::vector<PreviewPanel> many(12, PreviewPanel{Image2D{8, 2, std::vector<float>(16, 1.0f)}, "pair"});
  const RgbImage out = render_preview(many, {"counts", "", "", ColorMap::Hot, 0, 0});
  EXPECT_GE(std::max(out.width, out.height), kPreviewMinLongSide);
  EXPECT_LT(out.width, 3 * out.height);  // a grid, not a 12-panel strip

  test::TempDir dir;
  write_preview(dir.dir / "mips.png", panels, {"test", "1/mm", "MIPs", ColorMap::Gray, 0, 0});
  std::ifstream in(dir.dir / "mips.png", std::ios::binary);
  char sig[8] = {};
  in.read(sig, 8);
  EXPECT_EQ(std::string(sig + 1, 3), "PNG");
}

TEST(Preview, ShortSideReachesTheMinimumUnlessTheLongSideWouldPassTheMaximum) {
  EXPECT_EQ(preview_panel_scale(16, 16), 32);
  EXPECT_EQ(preview_panel_scale(40, 20), 26);   // 20 x 26 = 520
  EXPECT_EQ(preview_panel_scale(1000, 64), 2);  // 2000 <= 2048: as far as the long side allows
  EXPECT_EQ(preview_panel_scale(600, 600), 1);
}

// A PNG as written: its size and pixels (stb_image), and whether its top band (the title's
// rows) holds text: pixels of the title colour on a background of another.
struct Png {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
  explicit Png(const std::filesystem::path& p) {
    int n = 0;
    unsigned char* data = stbi_load(p.c_str(), &width, &height, &n, 3);
    if (data) rgb.assign(data, data + std::size_t(width) * height * 3);
    stbi_image_free(data);
  }
  bool titled() const {
    if (rgb.empty()) return false;
    const unsigned char* bg = &rgb[0];
    int ink = 0;
    for (int y = 8; y < 40; ++y)
      for (int x = 0; x < width; ++x) {
        const unsigned char* p = &rgb[(std::size_t(y) * width + x) * 3];
        ink += std::abs(int(p[0]) - int(bg[0])) > 150;
      }
    return ink > 20 * 20;  // twenty glyphs or more
  }
};

void expect_standard(const std::filesystem::path& p) {
  const Png png(p);
  EXPECT_GE(std::min(png.width, png.height), 512) << p << " is " << png.width << "x" << png.height;
  EXPECT_TRUE(png.titled()) << p << " has no title line";
}

// Each problem's own preview path, with the small images that were unreadable.
TEST(PreviewStandard, EveryProblemsPreviewIsAtLeast512PxWithATitle) {
  test::TempDir dir;
  RgbImage corr{16, 16, std::vector<unsigned char>(16 * 16 * 3, 200)};  // glpet's correspondence map
  write_picture_preview(dir.dir / "correspondence_centre.png", corr, "correspondence of pair 0");
  expect_standard(dir.dir / "correspondence_centre.png");

  VolumeF v(Grid3{{20, 40, 30}, {1, 1, 1}, {0, 0, 0}});  // oat's MIPs of a small grid
  for (std::size_t i = 0; i < v.data.size(); ++i) v.data[i] = static_cast<float>(i % 11);
  write_preview(dir.dir / "mip.png", {mip_panels(v)[2]}, {"pls", "a.u.", "MIP", ColorMap::Gray, 0, 0});
  expect_standard(dir.dir / "mip.png");

  std::vector<double> u(64 * 300);
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = std::sin(0.01 * double(i));
  oat::write_data_preview(dir.dir / "data.png", 64, 300, 0.0, 0.025, u);
  expect_standard(dir.dir / "data.png");

  const Grid3 g{{90, 90, 3}, {1, 1, 1}, {0, 0, 0}};  // safir's image.png
  safir::write_slice_png(dir.dir / "image.png", g, std::vector<double>(90 * 90 * 3, 1.0));
  expect_standard(dir.dir / "image.png");

  musr::ProgramBuilder b(1);  // musr's run plot: A cos(t) against data
  const musr::Program model = b.finish(b.mul(b.param(0), b.unary(musr::OpCode::cos, b.time())));
  musr::RunBins bins{model, {}, {}, {}};
  for (int i = 0; i < 200; ++i) {
    bins.t.push_back(0.05 * i);
    bins.y.push_back(0.2 * std::cos(0.05 * i));
    bins.sigma.push_back(0.01);
  }
  musr::RunInfo info;
  info.name = "run2650";
  info.fittype = 2;
  musr::write_run_plot(dir.dir / "run1.png", bins, info, std::vector<double>{0.2});
  expect_standard(dir.dir / "run1.png");
}

TEST(PreviewPlot, TicksAreRoundAndAxesCarryTheirNumbers) {
  EXPECT_EQ(nice_ticks(0, 10, 6), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(nice_ticks(-0.3, 0.25, 6), (std::vector<double>{-0.2, 0, 0.2}));
  EXPECT_TRUE(nice_ticks(1, 1, 5).empty());
  // A plot with axes has lit pixels left of its area (the y numbers) and below it (the x numbers).
  const RgbImage img = image_plot(Image2D{50, 10, std::vector<float>(500, 1.0f)}, {"p", "", "", ColorMap::Gray, 0, 2},
                                  {"t [us]", 0, 5, "transducer", 10, 0});
  int left = 0, below = 0;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < kPlotLeftMargin - 12; ++x) left += img.rgb[(std::size_t(y) * img.width + x) * 3] == 235;
  for (int y = img.height - kPlotBelow + 8; y < img.height; ++y)
    for (int x = kPlotLeftMargin; x < img.width; ++x) below += img.rgb[(std::size_t(y) * img.width + x) * 3] == 235;
  EXPECT_GT(left, 100);
  EXPECT_GT(below, 200);
  EXPECT_GE(std::min(img.width, img.height), 512);
}

}  // namespace
}  // namespace tomo
