// ASTRA cone_vec rows → views and matrices (see astra_geometry.hpp).
#include "compute/fdk/astra_geometry.hpp"

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::fdk {

std::vector<ConeView> astra_cone_vec_views(std::span<const double> vectors, const std::string& where) {
  if (vectors.empty() || vectors.size() % 12 != 0)
    throw InputError(str_cat(where, ": cone_vec takes 12 numbers per view, got ", vectors.size()));
  std::vector<ConeView> views(vectors.size() / 12);
  for (std::size_t n = 0; n < views.size(); ++n) {
    const double* r = vectors.data() + 12 * n;
    views[n] = {{r[0], r[1], r[2]}, {r[3], r[4], r[5]}, {r[6], r[7], r[8]}, {r[9], r[10], r[11]}};
  }
  return views;
}

std::vector<Mat34> astra_cone_vec_matrices(std::span<const double> vectors, int rows, int cols,
                                           const std::string& where) {
  if (rows < 1 || cols < 1) throw InputError(str_cat(where, ": the detector needs rows, cols >= 1, got ", rows, " x ", cols));
  return view_matrices(astra_cone_vec_views(vectors, where), cols, rows, where);
}

}  // namespace tomo::fdk
