// Raw projection stacks (see raw_stack.hpp).
#include "compute/fdk/raw_stack.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/core/log.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/npy.hpp"
#include "compute/io/tiff.hpp"

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

bool has_tiff_magic(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  if (in.gcount() != 4) return false;
  return (magic[0] == 'I' && magic[1] == 'I' && (magic[2] == 42 || magic[2] == 43) && magic[3] == 0) ||
         (magic[0] == 'M' && magic[1] == 'M' && magic[2] == 0 && (magic[3] == 42 || magic[3] == 43));
}

RawStack from_tiff(io::TiffStack t) {
  RawStack s;
  s.count = t.pages;
  s.rows = t.rows;
  s.cols = t.cols;
  s.pixels = std::move(t.pixels);
  return s;
}

// Every .tif/.tiff file of a folder in name order, pages after pages; all of one page size.
RawStack read_tiff_folder(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(folder)) {
    std::string ext = e.path().extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".tif" || ext == ".tiff") files.push_back(e.path());
    if (files.size() > kMaxProjections)
      throw InputError(str_cat(folder.string(), ": more than ", kMaxProjections, " TIFF files"));
  }
  if (files.empty()) throw InputError(folder.string() + ": a folder of projections holds no .tif or .tiff file");
  std::sort(files.begin(), files.end());
  RawStack s;
  for (const auto& f : files) {
    RawStack one = from_tiff(io::read_tiff_stack(f));
    if (s.count == 0) {
      s.rows = one.rows;
      s.cols = one.cols;
    } else if (one.rows != s.rows || one.cols != s.cols) {
      throw InputError(str_cat(f.string(), ": ", one.cols, " x ", one.rows, " pixels, but ", files.front().string(),
                               " has ", s.cols, " x ", s.rows, " (columns x rows)"));
    }
    if (s.count + one.count > static_cast<int>(kMaxProjections))
      throw InputError(str_cat(folder.string(), ": more than ", kMaxProjections, " pages"));
    s.count += one.count;
    s.pixels.insert(s.pixels.end(), one.pixels.begin(), one.pixels.end());
  }
  return s;
}

}  // namespace

std::string layout_axes(StackLayout layout) {
  return layout == StackLayout::astra ? "(rows, N, cols)" : "(N, rows, cols)";
}

std::string stored_shape(const RawStack& s) { return str_cat("(", s.count, ", ", s.rows, ", ", s.cols, ")"); }

RawStack arrange_stack(RawStack stored, StackLayout layout, const std::filesystem::path& path) {
  if (layout != StackLayout::astra) return stored;
  // ASTRA: stored axes (rows, N, cols) → (N, rows, cols).
  RawStack s;
  s.count = stored.rows;
  s.rows = stored.count;
  s.cols = stored.cols;
  check_sides(path, s.count, s.rows, s.cols);
  s.pixels.resize(stored.pixels.size());
  const std::size_t cols = static_cast<std::size_t>(s.cols);
  for (int r = 0; r < s.rows; ++r)
    for (int n = 0; n < s.count; ++n)
      std::memcpy(s.pixels.data() + (static_cast<std::size_t>(n) * s.rows + r) * cols,
                  stored.pixels.data() + (static_cast<std::size_t>(r) * s.count + n) * cols, cols * sizeof(float));
  return s;
}

bool has_npy_magic(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[6] = {};
  in.read(magic, 6);
  return in.gcount() == 6 && std::memcmp(magic, "\x93NUMPY", 6) == 0;
}

RawStack read_projection_stack(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    RawStack s = read_tiff_folder(path);
    check_sides(path, s.count, s.rows, s.cols);
    return s;
  }
  io::check_input_file(path, 32 * io::kGiB, "projection stack");
  RawStack s;
  if (has_npy_magic(path)) {
    s = read_npy_stack(path);
  } else if (has_tiff_magic(path)) {
    s = from_tiff(io::read_tiff_stack(path));  // finite values checked there
    check_sides(path, s.count, s.rows, s.cols);
  } else {
    s = read_nifti_stack(path);
  }
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
