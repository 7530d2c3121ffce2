// The oat data as a picture: one row per transducer, one column per time sample (the volumes'
// MIP previews come from compute/io/preview).
#pragma once
#include <span>

#include "compute/io/png.hpp"

namespace tomo::oat {

// One row per transducer (q = 0 at the top), one column per time sample.
Image2D data_image(int transducers, int samples, std::span<const double> u);

}  // namespace tomo::oat
