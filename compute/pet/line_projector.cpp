// The line projector's checks and its factory (the backends: cpu_line_projector.cpp,
// cuda/pet/cuda_line_projector.cpp).
#include "compute/pet/line_projector.hpp"

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

std::unique_ptr<LineProjector> make_line_projector(const std::string& backend, const LineGrid& grid,
                                                   std::span<const double> endpoints) {
  if (backend == "gl" || backend == "gl-compute")
    throw InputError("line projector: backend '" + backend +
                     "' is not implemented for this operator (it has cpu and cuda)");
  check_line_input(grid, endpoints);
  auto op = BackendRegistry<LineProjector>::instance().create(backend);
  op->configure(grid, endpoints);
  return op;
}

}  // namespace tomo::pet
