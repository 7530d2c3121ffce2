// ASTRA's cone_vec projection geometry as views: per view 12 numbers (srcX, srcY, srcZ, dX, dY,
// dZ, uX, uY, uZ, vX, vY, vZ) — the source, the detector centre, the step from column 0 to 1 and
// the step from row 0 to 1 — in the volume's units (here millimetres). ASTRA's projection data are
// (rows, angles, cols) and its volume (slices, rows, cols) = (z, y, x), each axis increasing with
// its index, centred on the origin unless its window says otherwise.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "compute/fdk/cone_view.hpp"

namespace tomo::fdk {

// InputError prefixed with `where` when the count is not a positive multiple of 12.
std::vector<ConeView> astra_cone_vec_views(std::span<const double> vectors, const std::string& where);

// The matrices of a cone_vec geometry with a detector of `rows` × `cols` pixels.
std::vector<Mat34> astra_cone_vec_matrices(std::span<const double> vectors, int rows, int cols,
                                           const std::string& where);

}  // namespace tomo::fdk
