// The line projector's checks and its factory (the backends: cpu_line_projector.cpp,
// cuda/pet/cuda_line_projector.cpp).
#include "compute/pet/line_projector.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"

namespace tomo::pet {

void LineProjector::forward_device(const float*, float*) {
  throw Error("line projector: device arrays need the cuda backend, this one is " + describe());
}
void LineProjector::back_device(const float*, float*) {
  throw Error("line projector: device arrays need the cuda backend, this one is " + describe());
}

void check_line_input(const LineGrid& g, std::span<const double> e) {
  const char* axis = "xyz";
  for (int k = 0; k < 3; ++k) {
    if (g.dims[k] < 1) throw InputError(str_cat("line projector: shape along ", axis[k], " is ", g.dims[k], ", must be >= 1"));
    if (!(std::isfinite(g.voxel_mm[k]) && g.voxel_mm[k] > 0))
      throw InputError(str_cat("line projector: voxel_size along ", axis[k], " is ", g.voxel_mm[k], ", must be finite and > 0"));
    if (!std::isfinite(g.origin_mm[k]))
      throw InputError(str_cat("line projector: origin along ", axis[k], " is ", g.origin_mm[k], ", must be finite"));
  }
  if (e.size() % 6 != 0)
    throw InputError(str_cat("line projector: ", e.size(), " end-point values, not 6 per line (x, y, z of both ends)"));
  for (std::size_t i = 0; i < e.size(); ++i)
    if (!std::isfinite(e[i]))
      throw InputError(str_cat("line projector: end points of line ", i / 6, " are not finite (", e[i], ")"));
}

void check_line_tof(const LineGrid& g, std::size_t lines, const LineTof& t) {
  if (t.bin_index.size() != lines)
    throw InputError(str_cat("line projector: tof_bin_index has ", t.bin_index.size(), " values, expected ", lines,
                             " (one per line)"));
  if (t.num_bins < 1) throw InputError(str_cat("line projector: num_tof_bins is ", t.num_bins, ", must be >= 1"));
  if (!(std::isfinite(t.bin_width_mm) && t.bin_width_mm > 0))
    throw InputError(str_cat("line projector: tof_bin_width is ", t.bin_width_mm, ", must be finite and > 0"));
  if (!(std::isfinite(t.num_sigmas) && t.num_sigmas > 0))
    throw InputError(str_cat("line projector: num_sigmas is ", t.num_sigmas, ", must be finite and > 0"));
  for (std::size_t i = 0; i < lines; ++i)
    if (t.bin_index[i] < 0 || t.bin_index[i] >= t.num_bins)
      throw InputError(str_cat("line projector: tof_bin_index of line ", i, " is ", t.bin_index[i], ", outside 0..",
                               t.num_bins - 1, " (num_tof_bins ", t.num_bins, ")"));
  if (t.sigma_mm.size() != 1 && t.sigma_mm.size() != lines)
    throw InputError(str_cat("line projector: tof_sigma has ", t.sigma_mm.size(), " values, expected 1 or ", lines,
                             " (one per line)"));
  if (t.center_offset_mm.size() > 1 && t.center_offset_mm.size() != lines)
    throw InputError(str_cat("line projector: tof_center_offset has ", t.center_offset_mm.size(),
                             " values, expected 1 or ", lines, " (one per line)"));
  // The kernel's window is walked plane by plane, inside the grid or not: bound it.
  const double step = std::min({g.voxel_mm[0], g.voxel_mm[1], g.voxel_mm[2]});
  for (std::size_t i = 0; i < t.sigma_mm.size(); ++i) {
    const double s = t.sigma_mm[i];
    const std::string who = t.sigma_mm.size() == 1 ? std::string() : str_cat(" of line ", i);
    if (!(std::isfinite(s) && s > 0))
      throw InputError(str_cat("line projector: tof_sigma", who, " is ", s, ", must be finite and > 0"));
    if (2 * t.num_sigmas * s / step > 1e6)
      throw InputError(str_cat("line projector: tof_sigma", who, " * num_sigmas (", s * t.num_sigmas,
                               " mm) spans more than 10^6 planes of ", step, " mm"));
  }
  for (std::size_t i = 0; i < t.center_offset_mm.size(); ++i)
    if (!std::isfinite(t.center_offset_mm[i]))
      throw InputError(str_cat("line projector: tof_center_offset",
                               t.center_offset_mm.size() == 1 ? std::string() : str_cat(" of line ", i), " is ",
                               t.center_offset_mm[i], ", must be finite"));
}

std::unique_ptr<LineProjector> make_line_projector(const std::string& backend, const LineGrid& grid,
                                                   std::span<const double> endpoints, const LineTof* tof) {
  if (backend == "gl" || backend == "gl-compute")
    throw InputError("line projector: backend '" + backend +
                     "' is not implemented for this operator (it has cpu and cuda)");
  check_line_input(grid, endpoints);
  if (tof) check_line_tof(grid, endpoints.size() / 6, *tof);
  auto op = BackendRegistry<LineProjector>::instance().create(backend);
  op->configure(grid, endpoints, tof);
  return op;
}

}  // namespace tomo::pet
