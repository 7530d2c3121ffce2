// Projection-matrix files (see matrix_file.hpp).
#include "compute/fdk/matrix_file.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/core/log.hpp"
#include "compute/io/atomic_file.hpp"
#include "compute/fdk/raw_stack.hpp"
#include "compute/io/npy.hpp"

namespace tomo::fdk {
namespace {

constexpr std::size_t kMaxMatrices = 1000000;

std::vector<Mat34> from_values(const std::vector<double>& v) {
  std::vector<Mat34> out(v.size() / 12);
  for (std::size_t n = 0; n < out.size(); ++n)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) out[n].at(r, c) = v[n * 12 + r * 4 + c];
  return out;
}

std::vector<Mat34> read_npy_matrices(const std::filesystem::path& path) {
  const NpyArray a = read_npy(path);  // payload size checked against the shape there
  if (a.type != NpyType::f8 && a.type != NpyType::f4)
    throw InputError(str_cat(path.string(), ": projection matrices must be float64 or float32, not ",
                             npy_descr(a.type)));
  const bool rows_of_12 = a.shape.size() == 2 && a.shape[1] == 12;  // (N, 12): the text's order
  if (!rows_of_12) {
    const std::size_t expect[3] = {0, 3, 4};
    require_npy_shape(a, expect, path.string() + " (projection matrices, shape (N, 3, 4) or (N, 12))");
  }
  if (a.shape[0] == 0) throw InputError(path.string() + ": no projection matrices (N = 0)");
  std::vector<double> v;
  try {
    v = a.to_double(path.string());
  } catch (const InputError&) {  // name the matrix, row and column rather than the flat index
    for (std::size_t i = 0; i < a.count(); ++i) {
      double x = 0;
      float f = 0;
      if (a.type == NpyType::f8)
        std::memcpy(&x, a.bytes.data() + 8 * i, 8);
      else
        std::memcpy(&f, a.bytes.data() + 4 * i, 4), x = f;
      const std::size_t k = !a.fortran_order ? i
                            : rows_of_12  ? (i % a.shape[0]) * 12 + i / a.shape[0]
                                          : (i % a.shape[0]) * 12 + (i / a.shape[0]) % 3 * 4 + i / (a.shape[0] * 3);
      if (!std::isfinite(x))
        throw InputError(str_cat(path.string(), ": matrix ", k / 12, ", row ", k % 12 / 4, ", column ", k % 4,
                                 " is not finite"));
    }
    throw;
  }
  return from_values(v);
}

// 96 bytes a projection as float64: 64 MiB is 700 000 projections, as text fewer.
constexpr std::uintmax_t kMaxMatrixFileBytes = 64 * io::kMiB;

std::vector<Mat34> read_text_matrices(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path.string() + ": cannot open the projection-matrix file");
  std::vector<double> v;
  std::string line;
  for (std::size_t lineno = 1; std::getline(in, line); ++lineno) {
    if (line.size() > 100000) throw InputError(str_cat(path.string(), ": line ", lineno, " is over 100000 characters"));
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    const char* p = line.data();
    const char* end = p + line.size();
    while (true) {
      while (p < end && (std::isspace(static_cast<unsigned char>(*p)) || *p == ',')) ++p;
      if (p == end) break;
      double x = 0;
      const char* from = *p == '+' && p + 1 < end && *(p + 1) != '-' ? p + 1 : p;  // from_chars takes no '+'
      const auto [q, ec] = std::from_chars(from, end, x);
      if (ec != std::errc() || (q < end && !std::isspace(static_cast<unsigned char>(*q)) && *q != ','))
        throw InputError(str_cat(path.string(), ": line ", lineno, ": '",
                                 std::string(p, std::min<std::size_t>(static_cast<std::size_t>(end - p), 20)),
                                 "' is not a number"));
      if (!std::isfinite(x))
        throw InputError(str_cat(path.string(), ": line ", lineno, ": value ", v.size() % 12 + 1, " of matrix ",
                                 v.size() / 12, " is not finite"));
      if (v.size() >= 12 * kMaxMatrices)
        throw InputError(str_cat(path.string(), ": more than ", kMaxMatrices, " projection matrices"));
      v.push_back(x);
      p = q;
    }
  }
  if (v.empty()) throw InputError(path.string() + ": no projection matrices in the file");
  if (v.size() % 12 != 0)
    throw InputError(str_cat(path.string(), ": ", v.size(), " numbers are not whole 3x4 matrices (12 per projection)"));
  return from_values(v);
}

}  // namespace

std::vector<Mat34> read_matrix_file(const std::filesystem::path& path) {
  io::check_input_file(path, kMaxMatrixFileBytes, "projection-matrix file");  // before the magic is read
  std::vector<Mat34> m = has_npy_magic(path) ? read_npy_matrices(path) : read_text_matrices(path);
  log_debug(path.string(), ": ", m.size(), " projection matrices");
  return m;
}

std::vector<double> matrix_numbers(const std::vector<Mat34>& matrices) {
  std::vector<double> v;
  v.reserve(12 * matrices.size());
  for (const Mat34& m : matrices)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) v.push_back(m.at(r, c));
  return v;
}

void write_matrix_file(const std::filesystem::path& path, const std::vector<Mat34>& matrices) {
  std::ostringstream out;
  out.precision(17);
  out << "# " << matrices.size() << " projection matrices, 3x4 row by row (tomoraster fdk)\n";
  for (const Mat34& m : matrices) {
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) out << m.at(r, c) << (r == 2 && c == 3 ? '\n' : ' ');
  }
  write_text_atomic(path, out.str());
}

}  // namespace tomo::fdk
