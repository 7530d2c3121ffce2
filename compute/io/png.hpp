// PNG previews: a 2D float image through a colour map (window [lo, hi]; auto
// when lo == hi), slices and maximum-intensity projections of volumes.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "compute/core/volume.hpp"

namespace tomo {

// Colours at the window ends (lo → hi): gray black → white; hot black → red → yellow → white;
// viridis #440154 → #FDE725; hsv red → yellow → green → cyan → blue → magenta → red.
// NaN pixels are black; a constant image is drawn with the map's middle colour (mid grey).
enum class ColorMap { Gray, Hot, Viridis, Hsv };
ColorMap color_map_from_name(const std::string& name);  // InputError when unknown

struct Image2D {
  int width = 0, height = 0;
  std::vector<float> pixels;  // row-major, row 0 at the top of the PNG
};

// axis 0: the y-z plane (looking along x), 1: x-z, 2: x-y.
Image2D slice(const VolumeF& v, int axis, int index);
Image2D mip(const VolumeF& v, int axis);
// Several images side by side with a 2-pixel gap (e.g. three orthogonal slices).
Image2D montage(const std::vector<Image2D>& images);

// RGB8 pixels of an image through a colour map.
std::vector<unsigned char> colorize(const Image2D& img, ColorMap map, float lo = 0, float hi = 0);
void write_png(const std::filesystem::path& path, const Image2D& img, ColorMap map = ColorMap::Gray,
               float lo = 0, float hi = 0);
void write_png_rgb(const std::filesystem::path& path, int width, int height, const std::vector<unsigned char>& rgb);

}  // namespace tomo
