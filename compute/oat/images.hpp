// Pictures of the oat problem: maximum-intensity projections of a volume along each axis (the
// seed's figures are MIPs) and the data as an image (transducer × time).
#pragma once
#include <span>

#include "compute/core/volume.hpp"
#include "compute/io/png.hpp"

namespace tomo::oat {

// MIP along `axis` (0: x, 1: y, 2: z). The image's columns/rows are the two other axes in
// order (z-MIP: x to the right, y up; y-MIP: x right, z up; x-MIP: y right, z up).
Image2D mip(const Grid3& grid, std::span<const double> volume, int axis);
// One row per transducer (q = 0 at the top), one column per time sample.
Image2D data_image(int transducers, int samples, std::span<const double> u);

}  // namespace tomo::oat
