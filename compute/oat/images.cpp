// The data image of the oat problem (see images.hpp).
#include "compute/oat/images.hpp"

#include <vector>

#include "compute/io/preview_plot.hpp"

namespace tomo::oat {

Image2D data_image(int Q, int K, std::span<const double> u) {
  Image2D img{K, Q, std::vector<float>(u.begin(), u.end())};
  return img;
}

void write_data_preview(const std::filesystem::path& path, int Q, int K, double t0_us, double dt_us,
                        std::span<const double> u) {
  // Row q = 0 at the top: the y axis runs from Q at the bottom to 0 at the top, so it counts down.
  const RgbImage img = image_plot(data_image(Q, K, u), {"pressure", "a.u.", "time x transducer", ColorMap::Gray, 0, 0},
                                  {"t [us]", t0_us, t0_us + K * dt_us, "transducer (0 at the top)", double(Q), 0.0});
  write_png_rgb(path, img.width, img.height, img.rgb);
}

}  // namespace tomo::oat
