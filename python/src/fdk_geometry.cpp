// tomoraster.fdk's geometry and input bindings: the circular orbit, ASTRA cone_vec rows and
// TIGRE's fields as matrices; projection stacks in the named layouts and flat/dark correction.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <string>
#include <vector>

#include "compute/fdk/astra_geometry.hpp"
#include "compute/fdk/flat_field.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/orbit.hpp"
#include "compute/fdk/raw_stack.hpp"
#include "compute/fdk/tigre_geometry.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/fdk_common.hpp"

namespace tomo::py {

std::vector<fdk::Mat34> mats_of(const AnyArray& matrices) {
  if (matrices.ndim() != 3 || matrices.shape(1) != 3 || matrices.shape(2) != 4)
    throw nb::value_error("matrices: shape (N, 3, 4) expected");
  const std::size_t n = matrices.shape(0);
  const double* m = double_input(matrices, "matrices", {n, 3, 4});
  std::vector<fdk::Mat34> mats(n);
  for (std::size_t i = 0; i < n; ++i)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) mats[i].at(r, c) = m[i * 12 + r * 4 + c];
  return mats;
}

DoubleArray matrices_array(const std::vector<fdk::Mat34>& mats) {
  std::vector<double> v;
  v.reserve(12 * mats.size());
  for (const auto& a : mats)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) v.push_back(a.at(r, c));
  return to_numpy<double>(std::move(v), {mats.size(), 3, 4});
}

Grid3 grid_of(const std::vector<int>& voxels, const std::vector<double>& voxel_mm, const std::vector<double>& origin_mm) {
  if (voxels.size() != 3 || voxel_mm.size() != 3 || origin_mm.size() != 3)
    throw nb::value_error("voxels, voxel_mm and origin_mm take three values each (x, y, z)");
  Grid3 g;
  for (int a = 0; a < 3; ++a) {
    if (voxels[a] < 1 || voxels[a] > 4096 || !(voxel_mm[a] > 0) || !std::isfinite(voxel_mm[a]) ||
        !std::isfinite(origin_mm[a]))
      throw nb::value_error("voxels must be 1..4096, voxel_mm finite and > 0, origin_mm finite");
    g.dims[a] = voxels[a];
    g.voxel_mm[a] = voxel_mm[a];
    g.origin_mm[a] = origin_mm[a];
  }
  return g;
}


namespace {

// The circular orbit of [fdk.geometry] (compute/fdk/geometry.hpp) as matrices: angles listed or
// `views` over `arc_deg` from `start_deg`; offsets where the central ray meets the detector.
DoubleArray circular_orbit(int views, double arc_deg, double start_deg, const std::vector<double>& angles_deg, int rows,
                           int cols, double pixel_mm, double source_iso_mm, double source_det_mm, double offset_u_mm,
                           double offset_v_mm, double roll_deg, double pitch_deg, double yaw_deg, bool short_scan) {
  fdk::CArmGeometry g;
  g.sx = cols;
  g.sy = rows;
  g.pixel_mm = pixel_mm;
  g.source_iso_mm = source_iso_mm;
  g.source_det_mm = source_det_mm;
  g.roll_deg = roll_deg, g.pitch_deg = pitch_deg, g.yaw_deg = yaw_deg;
  if (!angles_deg.empty()) {
    g.angles_deg = angles_deg;
    g.projections = static_cast<int>(angles_deg.size());
    g.start_deg = angles_deg.front();
    g.arc_deg = angles_deg.back() - angles_deg.front();
  } else {
    g.projections = views;
    g.start_deg = start_deg;
    g.arc_deg = short_scan ? g.short_scan_arc_deg() : arc_deg;
  }
  if (!std::isfinite(offset_u_mm) || std::abs(offset_u_mm) > 0.5 * cols * pixel_mm ||
      !std::isfinite(offset_v_mm) || std::abs(offset_v_mm) > 0.5 * rows * pixel_mm)
    throw nb::value_error("offset_u_mm and offset_v_mm must lie within half the detector");
  g.principal_u = 0.5 * (cols - 1) + offset_u_mm / pixel_mm;
  g.principal_v = 0.5 * (rows - 1) + offset_v_mm / pixel_mm;
  g.validate("circular orbit", false);
  return matrices_array(g.matrices());
}

DoubleArray tigre_matrices(const std::vector<double>& dsd, const std::vector<double>& dso,
                           const std::vector<int>& n_detector, const std::vector<double>& d_detector,
                           const std::vector<std::vector<double>>& off_detector,
                           const std::vector<std::vector<double>>& rot_detector,
                           const std::vector<std::vector<double>>& off_origin, const std::vector<double>& cor,
                           const std::vector<std::vector<double>>& angles) {
  fdk::TigreGeometry t;
  if (n_detector.size() != 2 || d_detector.size() != 2) throw nb::value_error("nDetector and dDetector take (v, u)");
  t.DSD = dsd;
  t.DSO = dso;
  t.nDetector = {n_detector[0], n_detector[1]};
  t.dDetector = {d_detector[0], d_detector[1]};
  const auto rows_of = [](const std::vector<std::vector<double>>& v, std::size_t k, const char* name) {
    std::vector<std::vector<double>> out = v;
    for (const auto& r : out)
      if (r.size() != k) throw nb::value_error((std::string(name) + ": rows of " + std::to_string(k) + " values").c_str());
    return out;
  };
  t.offDetector.clear(), t.rotDetector.clear(), t.offOrigin.clear();
  for (const auto& r : rows_of(off_detector, 2, "offDetector")) t.offDetector.push_back({r[0], r[1]});
  for (const auto& r : rows_of(rot_detector, 3, "rotDetector")) t.rotDetector.push_back({r[0], r[1], r[2]});
  for (const auto& r : rows_of(off_origin, 3, "offOrigin")) t.offOrigin.push_back({r[0], r[1], r[2]});
  t.COR = cor;
  for (const auto& r : rows_of(angles, 3, "angles")) t.angles.push_back({r[0], r[1], r[2]});
  return matrices_array(t.matrices("TIGRE geometry"));
}

fdk::RawStack stack_of(const AnyArray& a, const std::string& name) {
  if (a.ndim() != 2 && a.ndim() != 3) throw nb::value_error((name + ": shape (rows, cols) or (N, rows, cols) expected").c_str());
  fdk::RawStack s;
  s.count = a.ndim() == 3 ? int(a.shape(0)) : 1;
  s.rows = int(a.shape(a.ndim() - 2));
  s.cols = int(a.shape(a.ndim() - 1));
  const std::vector<std::size_t> shape = shape_of(a);
  const float* p = float_input(a, name, shape);
  s.pixels.assign(p, p + std::size_t(s.count) * s.rows * s.cols);
  return s;
}

}  // namespace

void bind_fdk_geometry(nb::module_& m) {
  m.def("fdk_circular_orbit", &circular_orbit, nb::arg("views"), nb::arg("arc_deg"), nb::arg("start_deg"),
        nb::arg("angles_deg"), nb::arg("rows"), nb::arg("cols"), nb::arg("pixel_mm"), nb::arg("source_iso_mm"),
        nb::arg("source_det_mm"), nb::arg("offset_u_mm"), nb::arg("offset_v_mm"), nb::arg("roll_deg"),
        nb::arg("pitch_deg"), nb::arg("yaw_deg"), nb::arg("short_scan"));
  m.def(
      "fdk_astra_matrices",
      [](const AnyArray& vectors, int rows, int cols) {
        if (vectors.ndim() != 2 || vectors.shape(1) != 12) throw nb::value_error("vectors: shape (N, 12) expected");
        const double* v = double_input(vectors, "vectors", {vectors.shape(0), 12});
        return matrices_array(fdk::astra_cone_vec_matrices({v, vectors.shape(0) * 12}, rows, cols, "cone_vec"));
      },
      nb::arg("vectors"), nb::arg("rows"), nb::arg("cols"));
  m.def("fdk_tigre_matrices", &tigre_matrices, nb::arg("DSD"), nb::arg("DSO"), nb::arg("nDetector"),
        nb::arg("dDetector"), nb::arg("offDetector"), nb::arg("rotDetector"), nb::arg("offOrigin"), nb::arg("COR"),
        nb::arg("angles"));
  m.def(
      "fdk_read_projections",
      [](const std::string& path, const std::string& layout) {
        fdk::StackLayout l = fdk::StackLayout::projections;
        bool known = false;
        for (const auto& row : fdk::kStackLayoutNames)
          if (row.name == layout) l = row.value, known = true;
        if (!known) throw nb::value_error("layout must be 'projections', 'tigre' or 'astra'");
        fdk::RawStack s;
        {
          nb::gil_scoped_release release;
          s = fdk::arrange_stack(fdk::read_projection_stack(path), l, path);
        }
        return to_numpy(std::move(s.pixels), {std::size_t(s.count), std::size_t(s.rows), std::size_t(s.cols)});
      },
      nb::arg("path"), nb::arg("layout"));
  m.def(
      "fdk_flat_dark",
      [](const AnyArray& projections, const AnyArray& flat, nb::object dark) {
        if (projections.ndim() != 3) throw nb::value_error("projections: shape (N, rows, cols) expected");
        fdk::RawStack s = stack_of(projections, "projections");
        const std::vector<float> f = fdk::mean_image(stack_of(flat, "flat"));
        std::vector<float> d;
        if (!dark.is_none()) d = fdk::mean_image(stack_of(nb::cast<AnyArray>(dark), "dark"));
        fdk::flat_dark_to_line_integrals(s, f, d, "projections");
        return to_numpy(std::move(s.pixels), {std::size_t(s.count), std::size_t(s.rows), std::size_t(s.cols)});
      },
      nb::arg("projections"), nb::arg("flat"), nb::arg("dark").none());
}

}  // namespace tomo::py
