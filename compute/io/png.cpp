// PNG previews: slices, maximum-intensity projections and montages of float images
// through a colour map, encoded with stb_image_write and written atomically.
#include "compute/io/png.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "compute/core/error.hpp"
#include "compute/io/atomic_file.hpp"

#define STB_IMAGE_WRITE_IMPLEMENTATION  // the one translation unit that holds stb_image_write
#include <stb_image_write.h>

namespace tomo {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// In-plane axes (u: image columns, v: image rows) of a slice perpendicular to `axis`.
std::array<int, 2> plane_axes(int axis) {
  switch (axis) {
    case 0: return {1, 2};
    case 1: return {0, 2};
    case 2: return {0, 1};
    default: throw Error("slice/mip axis must be 0, 1 or 2, got " + std::to_string(axis));
  }
}

// Volume sample at in-plane (u, w) and depth d along `axis`.
float sample(const VolumeF& v, int axis, int u, int w, int d) {
  int ijk[3];
  const auto [ua, wa] = plane_axes(axis);
  ijk[ua] = u;
  ijk[wa] = w;
  ijk[axis] = d;
  return v.at(ijk[0], ijk[1], ijk[2]);
}

Image2D empty_plane(const VolumeF& v, int axis) {
  const auto [ua, wa] = plane_axes(axis);
  Image2D img;
  img.width = v.grid.dims[ua];
  img.height = v.grid.dims[wa];
  img.pixels.assign(static_cast<std::size_t>(img.width) * img.height, kNaN);
  return img;
}

struct Rgb { float r, g, b; };

// Viridis sampled at t = 0, 1/8, …, 1 (#440154 #472D7B #3B528B #2C728E #21908C #27AD81
// #5DC863 #AADC32 #FDE725); linear in between, close enough for previews.
constexpr std::array<std::array<unsigned char, 3>, 9> kViridis = {{
    {0x44, 0x01, 0x54}, {0x47, 0x2D, 0x7B}, {0x3B, 0x52, 0x8B}, {0x2C, 0x72, 0x8E}, {0x21, 0x90, 0x8C},
    {0x27, 0xAD, 0x81}, {0x5D, 0xC8, 0x63}, {0xAA, 0xDC, 0x32}, {0xFD, 0xE7, 0x25}}};

Rgb viridis(float t) {
  const float x = t * (kViridis.size() - 1);
  const int i = std::min(static_cast<int>(x), static_cast<int>(kViridis.size()) - 2);
  const float f = x - i;
  const auto& a = kViridis[i];
  const auto& b = kViridis[i + 1];
  auto mix = [&](int c) { return ((1 - f) * a[c] + f * b[c]) / 255.0f; };
  return {mix(0), mix(1), mix(2)};
}

Rgb hsv(float t) {  // full hue circle at S = V = 1: red at both ends
  const float h = 6.0f * t;
  auto ch = [&](float n) {
    const float k = std::fmod(n + h, 6.0f);
    return 1.0f - std::max(0.0f, std::min({k, 4.0f - k, 1.0f}));
  };
  return {ch(5), ch(3), ch(1)};
}

Rgb map_colour(ColorMap map, float t) {
  t = std::clamp(t, 0.0f, 1.0f);
  switch (map) {
    case ColorMap::Gray: return {t, t, t};
    case ColorMap::Hot:  // black → red → yellow → white
      return {std::clamp(3 * t, 0.0f, 1.0f), std::clamp(3 * t - 1, 0.0f, 1.0f), std::clamp(3 * t - 2, 0.0f, 1.0f)};
    case ColorMap::Viridis: return viridis(t);
    case ColorMap::Hsv: return hsv(t);
  }
  return {t, t, t};
}

unsigned char to_byte(float x) { return static_cast<unsigned char>(std::lround(std::clamp(x, 0.0f, 1.0f) * 255.0f)); }

void stb_append(void* context, void* data, int size) {
  auto* out = static_cast<std::vector<unsigned char>*>(context);
  const auto* p = static_cast<const unsigned char*>(data);
  out->insert(out->end(), p, p + size);
}

}  // namespace

ColorMap color_map_from_name(const std::string& name) {
  if (name == "gray" || name == "grey") return ColorMap::Gray;
  if (name == "hot") return ColorMap::Hot;
  if (name == "viridis") return ColorMap::Viridis;
  if (name == "hsv") return ColorMap::Hsv;
  throw InputError("unknown colour map '" + name + "' (known: gray, hot, viridis, hsv)");
}

Image2D slice(const VolumeF& v, int axis, int index) {
  Image2D img = empty_plane(v, axis);
  if (index < 0 || index >= v.grid.dims[axis])
    throw InputError("slice index " + std::to_string(index) + " along axis " + std::to_string(axis) +
                     " is outside 0.." + std::to_string(v.grid.dims[axis] - 1));
  for (int r = 0; r < img.height; ++r)
    for (int c = 0; c < img.width; ++c)  // row 0 shows the highest coordinate of the second axis
      img.pixels[static_cast<std::size_t>(r) * img.width + c] = sample(v, axis, c, img.height - 1 - r, index);
  return img;
}

Image2D mip(const VolumeF& v, int axis) {
  Image2D img = empty_plane(v, axis);
  const int depth = v.grid.dims[axis];
  #pragma omp parallel for schedule(static) if (img.pixels.size() * depth > (1u << 20))
  for (int r = 0; r < img.height; ++r)
    for (int c = 0; c < img.width; ++c) {
      float m = kNaN;  // NaN samples are skipped; an all-NaN ray stays NaN (black)
      for (int d = 0; d < depth; ++d) {
        const float x = sample(v, axis, c, img.height - 1 - r, d);
        if (!std::isnan(x) && (std::isnan(m) || x > m)) m = x;
      }
      img.pixels[static_cast<std::size_t>(r) * img.width + c] = m;
    }
  return img;
}

Image2D montage(const std::vector<Image2D>& images) {
  constexpr int kGap = 2;
  Image2D out;
  for (const auto& im : images) {
    if (im.pixels.size() != static_cast<std::size_t>(im.width) * im.height)
      throw Error("montage: image pixel count does not match its size");
    out.width += im.width;
    out.height = std::max(out.height, im.height);
  }
  if (images.size() > 1) out.width += kGap * static_cast<int>(images.size() - 1);
  out.pixels.assign(static_cast<std::size_t>(out.width) * out.height, kNaN);  // gaps and padding: black
  int x0 = 0;
  for (const auto& im : images) {
    for (int r = 0; r < im.height; ++r)
      std::copy_n(im.pixels.begin() + static_cast<std::ptrdiff_t>(r) * im.width, im.width,
                  out.pixels.begin() + static_cast<std::ptrdiff_t>(r) * out.width + x0);
    x0 += im.width + kGap;
  }
  return out;
}

std::vector<unsigned char> colorize(const Image2D& img, ColorMap map, float lo, float hi) {
  if (img.pixels.size() != static_cast<std::size_t>(img.width) * img.height)
    throw Error("colorize: image pixel count does not match its size");
  bool constant = false;
  if (lo == hi) {  // auto window over the finite values
    float mn = std::numeric_limits<float>::infinity(), mx = -mn;
    for (float x : img.pixels)
      if (std::isfinite(x)) { mn = std::min(mn, x); mx = std::max(mx, x); }
    if (!(mn < mx)) constant = true;
    lo = mn;
    hi = mx;
  }
  std::vector<unsigned char> rgb(img.pixels.size() * 3);
  const Rgb mid = map_colour(map, 0.5f);
  for (std::size_t i = 0; i < img.pixels.size(); ++i) {
    const float x = img.pixels[i];
    Rgb c{0, 0, 0};  // NaN: black
    if (!std::isnan(x)) c = constant ? mid : map_colour(map, (x - lo) / (hi - lo));
    rgb[3 * i] = to_byte(c.r);
    rgb[3 * i + 1] = to_byte(c.g);
    rgb[3 * i + 2] = to_byte(c.b);
  }
  return rgb;
}

void write_png(const std::filesystem::path& path, const Image2D& img, ColorMap map, float lo, float hi) {
  write_png_rgb(path, img.width, img.height, colorize(img, map, lo, hi));
}

void write_png_rgb(const std::filesystem::path& path, int width, int height, const std::vector<unsigned char>& rgb) {
  if (width < 1 || height < 1 || rgb.size() != static_cast<std::size_t>(width) * height * 3)
    throw Error("write_png '" + path.string() + "': " + std::to_string(width) + "x" + std::to_string(height) +
                " image with " + std::to_string(rgb.size()) + " RGB bytes");
  std::vector<unsigned char> encoded;
  if (!stbi_write_png_to_func(&stb_append, &encoded, width, height, 3, rgb.data(), width * 3))
    throw Error("write_png '" + path.string() + "': PNG encoding failed");
  write_bytes_atomic(path, encoded.data(), encoded.size());
}

}  // namespace tomo
