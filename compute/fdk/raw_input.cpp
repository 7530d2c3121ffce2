// Reading `[fdk.raw]` (see raw_input.hpp).
#include "compute/fdk/raw_input.hpp"

#include <string>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"
#include "compute/fdk/matrix_file.hpp"
#include "compute/fdk/orbit.hpp"
#include "compute/fdk/raw_stack.hpp"

namespace tomo::fdk {

RawOptions RawOptions::from_scene(const Scene& s) {
  RawOptions o;
  o.projections = s.get<std::string>("fdk.raw.projections", "");
  o.matrices = s.get<std::string>("fdk.raw.matrices", "");
  o.intensity = s.get<bool>("fdk.raw.intensity", false);
  o.i0 = s.get_in_range("fdk.raw.i0", 0.0, 0.0, 1e30);
  return o;
}

RawInput load_raw_input(const Scene& s, const RawOptions& o, const CArmGeometry& scene_geometry, bool parker) {
  const bool intensity = o.intensity;
  const double i0 = o.i0;
  if (intensity && !(i0 > 0))
    throw InputError(s.where("fdk.raw.i0") + " must be > 0 when fdk.raw.intensity = true (the unattenuated intensity)");
  const std::filesystem::path stack_path = s.get_input_path("fdk.raw.projections");
  const std::filesystem::path matrix_path = s.get_input_path("fdk.raw.matrices");
  RawStack stack = read_projection_stack(stack_path);
  RawInput in;
  if (!matrix_path.empty()) {
    std::vector<Mat34> m = read_matrix_file(matrix_path);
    if (static_cast<int>(m.size()) != stack.count)
      throw InputError(str_cat(stack_path.string(), ": ", stack.count, " projections, but ", matrix_path.string(),
                               " has ", m.size(), " matrices"));
    FittedOrbit f = fit_orbit(m, stack.cols, stack.rows, parker, matrix_path.string());
    in.geometry = f.geometry;
    in.matrices = std::move(f.matrices);
    in.source = "matrices from " + matrix_path.string();
  } else {
    const CArmGeometry& g = scene_geometry;
    if (stack.count != g.projections || stack.cols != g.sx || stack.rows != g.sy)
      throw InputError(str_cat(stack_path.string(), ": ", stack.count, " projections of ", stack.cols, "x", stack.rows,
                               ", but ", s.where("fdk.geometry"), " describes ", g.projections, " of ", g.sx, "x",
                               g.sy, " (set fdk.geometry.projections, detector_columns, detector_rows, or give "
                               "fdk.raw.matrices)"));
    in.geometry = g;
    in.matrices = g.matrices();
    in.source = "scene C-arm (" + s.where("fdk.geometry") + ")";
  }
  log_info(stack_path.string(), ": ", stack.count, " projections of ", stack.cols, "x", stack.rows,
           intensity ? " (intensities, I0 = " + std::to_string(i0) + ")" : " (line integrals)", "; geometry: ", in.source);
  if (intensity) intensities_to_line_integrals(stack, i0, stack_path);
  in.line_integrals = std::move(stack.pixels);
  return in;
}

}  // namespace tomo::fdk
