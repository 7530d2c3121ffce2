// Readable PNG previews, one standard for every problem: images upsampled by a whole number
// with nearest neighbour, every PNG at least 512 px on its short side, a one-line title
// (quantity, unit, window), panel captions and a colour bar; plots get axes with ticks and
// labels (preview_plot.hpp).
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "compute/core/volume.hpp"
#include "compute/io/png.hpp"

namespace tomo {

// What the pixels are. The window [lo, hi] is auto (finite min..max over all panels) when
// lo == hi. Text is drawn in ASCII: other characters show as '?', so write "1/mm", "mm^3".
struct PreviewLabel {
  std::string quantity;  // "activity"
  std::string unit;      // "a.u.", "1/mm"; empty: none shown
  std::string view;      // "MIPs", "central slices"; empty: none shown
  ColorMap map = ColorMap::Gray;
  float lo = 0, hi = 0;
};

struct PreviewPanel {
  Image2D image;
  std::string caption;  // drawn above the panel; may be empty
};

struct RgbImage {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;  // row-major, 3 bytes a pixel
};

constexpr int kPreviewMinLongSide = 512;

// The integer nearest-neighbour factor that brings a `long_side`-pixel image to >= 512 px.
int preview_scale(int long_side);
// The factor for a width x height image: >= 512 px on the long side, and on the short side
// too unless that would take the long side beyond kPreviewMaxLongSide (a long thin image
// is then padded: the PNG is still >= 512 px both ways).
constexpr int kPreviewMaxLongSide = 2048;
int preview_panel_scale(int width, int height);

// Panels (one shared window and integer scale) in a row, or a grid when there are more than
// three, then the colour bar on the right and the title above.
RgbImage render_preview(const std::vector<PreviewPanel>& panels, const PreviewLabel& label);
void write_preview(const std::filesystem::path& path, const std::vector<PreviewPanel>& panels,
                   const PreviewLabel& label);

// A picture made elsewhere (RGB, e.g. a map of detector indices) to the same standard:
// upsampled by preview_panel_scale, centred on a canvas >= 512 px both ways, the title above.
RgbImage picture_preview(const RgbImage& picture, const std::string& title);
void write_picture_preview(const std::filesystem::path& path, const RgbImage& picture, const std::string& title);
void write_rgb_png(const std::filesystem::path& path, const RgbImage& img);

// The three maximum-intensity projections (along x, y, z) and the three central slices,
// captioned with the plane's axes; tomo::mip / tomo::slice orientation (second axis up).
std::vector<PreviewPanel> mip_panels(const VolumeF& v);
std::vector<PreviewPanel> central_slice_panels(const VolumeF& v);
PreviewPanel slice_panel(const VolumeF& v, int axis, int index);

// The title line the preview carries, e.g. "activity [a.u.], MIPs, window [0, 12.5]".
std::string preview_title(const PreviewLabel& label, float lo, float hi);

// Text with stb_easy_font (libstb-dev: ASCII glyphs made of rectangles, no font file), each
// font pixel drawn as scale x scale pixels; (x, y) is the top left corner.
int text_width(std::string_view text, int scale);
int text_height(int scale);
void draw_text(RgbImage& canvas, int x, int y, std::string_view text, int scale, const unsigned char colour[3]);

}  // namespace tomo
