// glpet previews written by the runner.
#include "compute/glpet/previews.hpp"

#include <algorithm>
#include <cstdio>

#include "compute/glpet/line_set.hpp"

namespace tomo::glpet {

namespace {

// One image per module pair, atlas row v = 0 at the bottom.
std::vector<Image2D> atlas_panels(const Scanner& sc, std::span<const float> lors) {
  std::vector<Image2D> panels;
  for (std::size_t p = 0; p < sc.pairs.size(); ++p) {
    const auto& pair = sc.pairs[p];
    Image2D img;
    img.width = pair.atlas_width();
    img.height = pair.atlas_height();
    img.pixels.resize(std::size_t(img.width) * img.height);
    const std::size_t off = sc.lor_offset(p);
    for (int v = 0; v < img.height; ++v)
      for (int u = 0; u < img.width; ++u)
        img.pixels[std::size_t(img.height - 1 - v) * img.width + u] = lors[off + std::size_t(v) * img.width + u];
    panels.push_back(std::move(img));
  }
  return panels;
}

}  // namespace

Image2D atlas_image(const Scanner& sc, std::span<const float> lors) {
  std::vector<Image2D> panels = atlas_panels(sc, lors);
  return panels.size() == 1 ? panels[0] : montage(panels);
}

void write_mip_png(const std::filesystem::path& path, const VolumeF& v, const std::string& quantity,
                   const std::string& unit, ColorMap map) {
  write_preview(path, mip_panels(v), {quantity, unit, "MIPs", map, 0.0f, 0.0f});
}

void write_atlas_png(const std::filesystem::path& path, const Scanner& sc, std::span<const float> lors,
                     const std::string& quantity) {
  std::vector<PreviewPanel> panels;
  std::vector<Image2D> images = atlas_panels(sc, lors);
  for (std::size_t p = 0; p < images.size(); ++p)
    panels.push_back({std::move(images[p]), "pair " + std::to_string(p)});
  write_preview(path, panels, {quantity, "counts", "LOR atlas per module pair", ColorMap::Hot, 0.0f, 0.0f});
}

double write_correspondence_png(const std::filesystem::path& path, const SystemModel& sys, std::size_t pair,
                                const Vec3& v) {
  const ModulePair& pr = sys.scanner.pairs.at(pair);
  const Extinction ext(sys.sigma_t);
  const Correspondence c(pr, v, sys.R);
  std::vector<Line> lines(std::size_t(c.width) * c.height);
  double wmax = 0;
  for (int Y = 0; Y < c.height; ++Y)
    for (int X = 0; X < c.width; ++X) {
      lines[std::size_t(Y) * c.width + X] = c.trace(X, Y, &ext, sys.K);
      wmax = std::max(wmax, lines[std::size_t(Y) * c.width + X].weight);
    }
  std::vector<unsigned char> rgb(std::size_t(c.width) * c.height * 3, 0);
  const Module& m2 = c.secondary_module();
  for (int Y = 0; Y < c.height; ++Y)
    for (int X = 0; X < c.width; ++X) {
      const Line& L = lines[std::size_t(Y) * c.width + X];
      if (!L.hit) continue;
      unsigned char* px = &rgb[(std::size_t(c.height - 1 - Y) * c.width + X) * 3];
      px[0] = (unsigned char)(255.0 * (L.r + 1) / (m2.n_a + 1));
      px[1] = (unsigned char)(255.0 * (L.s + 1) / (m2.n_t + 1));
      px[2] = wmax > 0 ? (unsigned char)(255.0 * L.weight / wmax) : 0;
    }
  char title[160];
  std::snprintf(title, sizeof title, "correspondence of pair %zu at (%.3g, %.3g, %.3g) mm: R = row r, G = column s, B = weight / %.3g",
                pair, v[0], v[1], v[2], wmax);
  write_picture_preview(path, RgbImage{c.width, c.height, std::move(rgb)}, title);
  return wmax;
}

}  // namespace tomo::glpet
