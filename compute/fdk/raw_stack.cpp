// Raw projection stacks (see raw_stack.hpp).
#include "compute/fdk/raw_stack.hpp"

#include <cmath>
#include <cstring>
#include <fstream>
#include <string>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/core/log.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/npy.hpp"

namespace tomo::fdk {
namespace {

constexpr std::size_t kMaxSide = 65536, kMaxProjections = 100000;

void check_sides(const std::filesystem::path& path, std::size_t n, std::size_t rows, std::size_t cols) {
  if (n < 1 || rows < 1 || cols < 2 || n > kMaxProjections || rows > kMaxSide || cols > kMaxSide)
    throw InputError(str_cat(path.string(), ": a projection stack of ", n, " x ", rows, " x ", cols,
                             " (projections x rows x columns) is outside 1..", kMaxProjections, " x 1..", kMaxSide,
                             " x 2..", kMaxSide));
}

void require_finite(const RawStack& s, const std::filesystem::path& path) {
  const std::size_t image = static_cast<std::size_t>(s.rows) * s.cols;
  for (std::size_t i = 0; i < s.pixels.size(); ++i)
    if (!std::isfinite(s.pixels[i]))
      throw InputError(str_cat(path.string(), ": projection ", i / image, ", row ", i % image / s.cols, ", column ",
                               i % s.cols, " is not finite (", s.pixels[i], ")"));
}

RawStack read_npy_stack(const std::filesystem::path& path) {
  NpyArray a = read_npy(path);  // header and payload size checked against the file there
  if (a.type != NpyType::f4 && a.type != NpyType::u2)
    throw InputError(str_cat(path.string(), ": projection stacks must be float32 (<f4) or uint16 (<u2), not ",
                             npy_descr(a.type)));
  if (a.shape.size() != 3)
    throw InputError(str_cat(path.string(), ": a projection stack has shape (N, rows, columns); this array has ",
                             a.shape.size(), " dimensions"));
  check_sides(path, a.shape[0], a.shape[1], a.shape[2]);
  RawStack s;
  s.count = static_cast<int>(a.shape[0]);
  s.rows = static_cast<int>(a.shape[1]);
  s.cols = static_cast<int>(a.shape[2]);
  if (a.type == NpyType::f4 && !a.fortran_order) {
    s.pixels.resize(a.count());
    std::memcpy(s.pixels.data(), a.bytes.data(), s.pixels.size() * sizeof(float));
    a.bytes = {};
    require_finite(s, path);  // names the projection, row and column
  } else {
    s.pixels = a.to_float(path.string());  // uint16 is finite; Fortran order transposed there
  }
  return s;
}

RawStack read_nifti_stack(const std::filesystem::path& path) {
  VolumeF v = read_nifti(path);  // header sizes checked against the file there
  check_sides(path, v.grid.dims[2], v.grid.dims[1], v.grid.dims[0]);
  RawStack s;
  s.count = v.grid.dims[2];
  s.rows = v.grid.dims[1];
  s.cols = v.grid.dims[0];
  s.pixels = std::move(v.data);
  require_finite(s, path);
  return s;
}

}  // namespace

bool has_npy_magic(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[6] = {};
  in.read(magic, 6);
  return in.gcount() == 6 && std::memcmp(magic, "\x93NUMPY", 6) == 0;
}

RawStack read_projection_stack(const std::filesystem::path& path) {
  io::check_input_file(path, 32 * io::kGiB, "projection stack");
  RawStack s = has_npy_magic(path) ? read_npy_stack(path) : read_nifti_stack(path);
  log_debug(path.string(), ": ", s.count, " projections of ", s.cols, "x", s.rows);
  return s;
}

std::size_t intensities_to_line_integrals(RawStack& s, double i0, const std::filesystem::path& path) {
  if (!(i0 > 0) || !std::isfinite(i0)) throw InputError(str_cat("fdk.raw.i0 must be finite and > 0, got ", i0));
  const std::size_t image = static_cast<std::size_t>(s.rows) * s.cols;
  const double floor_i = i0 * 1e-6;
  std::size_t clamped = 0;
  for (std::size_t i = 0; i < s.pixels.size(); ++i) {
    double I = s.pixels[i];
    if (I < 0)
      throw InputError(str_cat(path.string(), ": projection ", i / image, ", row ", i % image / s.cols, ", column ",
                               i % s.cols, " has a negative intensity (", I, ")"));
    if (I < floor_i) I = floor_i, ++clamped;
    s.pixels[i] = static_cast<float>(std::log(i0 / I));
  }
  if (clamped) log_warn(path.string(), ": ", clamped, " pixels at or near zero intensity taken as i0·1e-6");
  return clamped;
}

}  // namespace tomo::fdk
