// The data image of the oat problem (see images.hpp).
#include "compute/oat/images.hpp"

#include <string>
#include <vector>

#include "compute/io/preview_plot.hpp"

namespace tomo::oat {

Image2D data_image(int Q, int K, std::span<const double> u) {
  Image2D img{K, Q, std::vector<float>(u.begin(), u.end())};
  return img;
}

void write_data_preview(const std::filesystem::path& path, int Q, int K, double t0_us, double dt_us,
                        std::span<const double> u) {
  // Every stride-th transducer, at most kMaxPreviewRows rows: a paper-sized acquisition (32768
  // transducers) would otherwise make a picture of 10⁷ pixels that took seconds to encode and
  // that no screen shows.
  const int stride = (Q + kMaxPreviewRows - 1) / kMaxPreviewRows;
  const int rows = (Q + stride - 1) / stride;
  std::vector<double> shown;
  if (stride > 1) {
    shown.reserve(std::size_t(rows) * K);
    for (int r = 0; r < rows; ++r)
      shown.insert(shown.end(), u.begin() + std::size_t(r) * stride * K, u.begin() + (std::size_t(r) * stride + 1) * K);
    u = shown;
  }
  const std::string rows_label = stride > 1 ? "transducer (0 at the top; one in " + std::to_string(stride) + " shown)"
                                            : "transducer (0 at the top)";
  // Row q = 0 at the top: the y axis runs from Q at the bottom to 0 at the top, so it counts down.
  const RgbImage img = image_plot(data_image(rows, K, u), {"pressure", "a.u.", "time x transducer", ColorMap::Gray, 0, 0},
                                  {"t [us]", t0_us, t0_us + K * dt_us, rows_label, double(Q), 0.0});
  write_png_rgb(path, img.width, img.height, img.rgb);
}

}  // namespace tomo::oat
