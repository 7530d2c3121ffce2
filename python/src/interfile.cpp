// Interfile images for Python: read_interfile(path) → (array, voxel_mm, origin_mm, frame_s), as
// read_nifti; write_interfile(path, array, ...) writes the header and its `.v` data file beside
// it (docs/formats.md). Arrays are (z, y, x) or (t, z, y, x) float32, x fastest in memory.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/io/interfile.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"

namespace tomo::py {
namespace {

nb::tuple read_interfile_py(const std::string& path) {
  NiftiSeries v;
  {
    nb::gil_scoped_release release;
    v = read_interfile_series(path);
  }
  const Grid3& g = v.grid;
  std::vector<double> vox(g.voxel_mm.begin(), g.voxel_mm.end()), org(g.origin_mm.begin(), g.origin_mm.end());
  std::vector<std::size_t> shape{std::size_t(g.dims[2]), std::size_t(g.dims[1]), std::size_t(g.dims[0])};
  if (v.frames > 1) shape.insert(shape.begin(), std::size_t(v.frames));
  return nb::make_tuple(to_numpy(std::move(v.data), shape), vox, org, v.frame_s);
}

std::array<double, 3> triple(const std::vector<double>& v, const char* name, bool positive) {
  if (v.size() != 3) throw InputError(std::string(name) + ": expected 3 values (x, y, z), got " + std::to_string(v.size()));
  for (double x : v)
    if (!std::isfinite(x) || (positive && !(x > 0)))
      throw InputError(std::string(name) + ": values must be finite" + (positive ? " and > 0" : ""));
  return {v[0], v[1], v[2]};
}

// origin_mm empty: the grid centred on the scanner axis (voxel 0 at −(n − 1)/2 · voxel).
void write_interfile_py(const std::string& path, const AnyArray& array, const std::vector<double>& voxel_mm,
                        const std::vector<double>& origin_mm, const std::string& quantity, const std::string& unit,
                        double frame_s) {
  const std::vector<std::size_t> shape = shape_of(array);
  if (shape.size() != 3 && shape.size() != 4)
    throw InputError("array: expected (z, y, x) or (t, z, y, x), got shape " + shape_text(shape));
  for (std::size_t s : shape)
    if (s == 0 || s > (std::size_t{1} << 30)) throw InputError("array: shape " + shape_text(shape) + " has an empty or huge axis");
  const float* data = float_input(array, "array", shape);
  const std::size_t off = shape.size() - 3;
  NiftiSeries s;
  s.grid.dims = {static_cast<int>(shape[off + 2]), static_cast<int>(shape[off + 1]), static_cast<int>(shape[off])};
  s.grid.voxel_mm = triple(voxel_mm, "voxel_mm", true);
  if (origin_mm.empty())
    for (int a = 0; a < 3; ++a) s.grid.origin_mm[a] = -0.5 * (s.grid.dims[a] - 1) * s.grid.voxel_mm[a];
  else
    s.grid.origin_mm = triple(origin_mm, "origin_mm", false);
  s.frames = off ? static_cast<int>(shape[0]) : 1;
  if (!(std::isfinite(frame_s) && frame_s >= 0)) throw InputError("frame_s: must be finite and >= 0");
  s.frame_s = frame_s;
  s.data.assign(data, data + s.grid.count() * static_cast<std::size_t>(s.frames));
  nb::gil_scoped_release release;
  write_interfile(path, s, NiftiMeta(quantity, unit));
}

}  // namespace

void bind_interfile(nb::module_& m) {
  m.def("read_interfile", &read_interfile_py, nb::arg("path"));
  m.def("write_interfile", &write_interfile_py, nb::arg("path"), nb::arg("array"), nb::arg("voxel_mm"),
        nb::arg("origin_mm"), nb::arg("quantity"), nb::arg("unit"), nb::arg("frame_s"));
}

}  // namespace tomo::py
