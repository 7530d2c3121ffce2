// The oat data as a picture: one row per transducer, one column per time sample (the volumes'
// MIP previews come from compute/io/preview).
#pragma once
#include <filesystem>
#include <span>

#include "compute/io/png.hpp"

namespace tomo::oat {

// One row per transducer (q = 0 at the top), one column per time sample.
Image2D data_image(int transducers, int samples, std::span<const double> u);

// data.png shows at most this many transducers (every n-th beyond).
inline constexpr int kMaxPreviewRows = 1024;

// data.png: that picture with axes (time in us across, from t0_us in steps of dt_us;
// transducer index down), a title and the previews' size (compute/io/preview_plot).
void write_data_preview(const std::filesystem::path& path, int transducers, int samples, double t0_us, double dt_us,
                        std::span<const double> u);

}  // namespace tomo::oat
