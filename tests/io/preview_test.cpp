// Previews: upsampling to >= 512 px by whole pixels, the shared window, the colour bar's
// ends, the title's text actually drawn, and non-ASCII text drawn as '?' (no crash).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>

#include "compute/io/preview.hpp"
#include "tests/support/temp_dir.hpp"

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
  const int k = preview_scale(4);
  ASSERT_EQ(k, 128);
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

}  // namespace
}  // namespace tomo
