// Reading `[fdk.raw]` (see raw_input.hpp).
#include "compute/fdk/raw_input.hpp"

#include <string>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"
#include "compute/fdk/astra_geometry.hpp"
#include "compute/fdk/flat_field.hpp"
#include "compute/fdk/matrix_file.hpp"
#include "compute/fdk/orbit.hpp"

namespace tomo::fdk {
namespace {

// What the geometry says the stack must be: views of cols × rows (0: the stack's own).
struct Expected {
  int views = 0, cols = 0, rows = 0;
  std::string what;  // the geometry's side of the message: "m.txt has 100 matrices"
};

// One line naming the stack's shape as stored and as read under the layout, and the geometry's.
[[noreturn]] void mismatch(const std::filesystem::path& path, const RawStack& stored, const RawStack& s,
                           StackLayout layout, const Expected& e) {
  throw InputError(str_cat(path.string(), ": shape ", stored_shape(stored), " read as fdk.layout = \"",
                           enum_name(kStackLayoutNames, layout), "\" ", layout_axes(layout), " is ", s.count,
                           " projections", e.cols > 0 ? str_cat(" of ", s.cols, "x", s.rows) : "", ", but ", e.what));
}


}  // namespace

std::filesystem::path stack_location(const Scene& s, const char* key) {
  const std::string text = s.get<std::string>(key, "");
  if (text.empty()) return {};
  std::filesystem::path p(text);
  const std::filesystem::path base = std::filesystem::path(s.source()).parent_path();
  std::error_code ec;
  if (p.is_relative() && !s.overridden(key) && !base.empty() && std::filesystem::is_directory(base, ec)) p = base / p;
  if (std::filesystem::is_directory(p, ec)) return p.lexically_normal();
  return s.get_input_path(key);
}

namespace {

std::vector<float> mean_field(const Scene& s, const char* key, const RawStack& stack) {
  const std::filesystem::path p = stack_location(s, key);
  if (p.empty()) return {};
  RawStack f = read_projection_stack(p);
  if (f.rows != stack.rows || f.cols != stack.cols)
    throw InputError(str_cat(p.string(), " (", s.where(key), "): images of ", f.cols, " x ", f.rows,
                             ", but the projections are ", stack.cols, " x ", stack.rows, " (columns x rows)"));
  return mean_image(f);
}

}  // namespace

RawOptions RawOptions::from_scene(const Scene& s) {
  RawOptions o;
  o.projections = s.get<std::string>("fdk.raw.projections", "");
  o.matrices = s.get<std::string>("fdk.raw.matrices", "");
  o.astra_vectors = s.get<std::string>("fdk.raw.astra_vectors", "");
  if (s.has("fdk.tigre")) o.tigre = TigreGeometry::from_scene(s, "fdk.tigre.");
  o.intensity = s.get<bool>("fdk.raw.intensity", false);
  o.i0 = s.get_in_range("fdk.raw.i0", 0.0, 0.0, 1e30);
  o.flat = s.get<std::string>("fdk.raw.flat", "");
  o.dark = s.get<std::string>("fdk.raw.dark", "");
  o.layout = s.get_enum("fdk.layout", StackLayout::projections, kStackLayoutNames);
  const int geometries = !o.matrices.empty() + !o.astra_vectors.empty() + o.tigre.has_value();
  if (geometries > 1)
    throw InputError(s.where("fdk.raw") + ": give one geometry of fdk.raw.matrices, fdk.raw.astra_vectors and [fdk.tigre]");
  if (!o.dark.empty() && o.flat.empty())
    throw InputError(s.where("fdk.raw.dark") + " needs fdk.raw.flat (the beam without the object)");
  if (!o.flat.empty() && o.intensity)
    throw InputError(s.where("fdk.raw.flat") + " and fdk.raw.intensity both normalise the stack; give one");
  return o;
}

RawInput load_raw_input(const Scene& s, const RawOptions& o, const CArmGeometry& scene_geometry, bool parker) {
  const bool intensity = o.intensity;
  const double i0 = o.i0;
  if (intensity && !(i0 > 0))
    throw InputError(s.where("fdk.raw.i0") + " must be > 0 when fdk.raw.intensity = true (the unattenuated intensity)");
  const std::filesystem::path stack_path = stack_location(s, "fdk.raw.projections");
  const std::filesystem::path matrix_path = s.get_input_path("fdk.raw.matrices");
  const std::filesystem::path astra_path = s.get_input_path("fdk.raw.astra_vectors");

  // The geometry's files first (small), then the stack, then every count and size compared.
  std::vector<double> astra_rows;
  std::vector<Mat34> given;
  Expected e;
  if (!matrix_path.empty()) {
    given = read_matrix_file(matrix_path);
    e = {static_cast<int>(given.size()), 0, 0, str_cat(matrix_path.string(), " has ", given.size(), " matrices")};
  } else if (!astra_path.empty()) {
    astra_rows = matrix_numbers(read_matrix_file(astra_path));  // 12 numbers a view, as written
    e = {static_cast<int>(astra_rows.size() / 12), 0, 0,
         str_cat(astra_path.string(), " has ", astra_rows.size() / 12, " cone_vec rows")};
  } else if (o.tigre) {
    const TigreGeometry& t = *o.tigre;
    e = {t.views(), t.nDetector[1], t.nDetector[0],
         str_cat(s.where("fdk.tigre"), " describes ", t.views(), " of ", t.nDetector[1], "x", t.nDetector[0])};
  } else {
    const CArmGeometry& g = scene_geometry;
    e = {g.projections, g.sx, g.sy,
         str_cat(s.where("fdk.geometry"), " describes ", g.projections, " of ", g.sx, "x", g.sy,
                 " (set fdk.geometry.projections, detector_columns, detector_rows, or give fdk.raw.matrices)")};
  }
  RawStack stack = read_projection_stack(stack_path);
  RawStack stored_shape_of{stack.count, stack.rows, stack.cols, {}};
  stack = arrange_stack(std::move(stack), o.layout, stack_path);
  if (stack.count != e.views || (e.cols > 0 && (stack.cols != e.cols || stack.rows != e.rows)))
    mismatch(stack_path, stored_shape_of, stack, o.layout, e);

  RawInput in;
  std::vector<Mat34> m;
  if (!given.empty()) {
    m = std::move(given);
    in.source = "matrices from " + matrix_path.string();
  } else if (!astra_rows.empty()) {
    m = astra_cone_vec_matrices(astra_rows, stack.rows, stack.cols, astra_path.string());
    in.source = "ASTRA cone_vec rows from " + astra_path.string();
  } else if (o.tigre) {
    m = o.tigre->matrices(s.where("fdk.tigre"));
    in.source = "TIGRE geometry (" + s.where("fdk.tigre") + ")";
  }
  if (!m.empty()) {
    FittedOrbit f = fit_orbit(m, stack.cols, stack.rows, parker, in.source);
    in.geometry = f.geometry;
    in.matrices = std::move(f.matrices);
  } else {
    in.geometry = scene_geometry;
    in.matrices = scene_geometry.matrices();
    in.source = "scene C-arm (" + s.where("fdk.geometry") + ")";
  }
  log_info(stack_path.string(), ": ", stack.count, " projections of ", stack.cols, "x", stack.rows,
           !o.flat.empty() ? " (intensities with flat/dark fields)"
           : intensity     ? " (intensities, I0 = " + std::to_string(i0) + ")"
                           : " (line integrals)",
           "; geometry: ", in.source);
  if (!o.flat.empty()) {
    const std::vector<float> flat = mean_field(s, "fdk.raw.flat", stack), dark = mean_field(s, "fdk.raw.dark", stack);
    flat_dark_to_line_integrals(stack, flat, dark, stack_path.string());
  } else if (intensity) {
    intensities_to_line_integrals(stack, i0, stack_path);
  }
  in.line_integrals = std::move(stack.pixels);
  return in;
}

}  // namespace tomo::fdk
