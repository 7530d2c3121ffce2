// Per-projection 3×4 projection matrices from users' files: text (12 numbers per projection, each
// matrix row by row: p00 p01 p02 p03 p10 … p23; blank lines and '#' comments ignored) or .npy of
// shape (N, 3, 4) or (N, 12). Told apart by the .npy magic, not the name. Written as text, atomically.
#pragma once
#include <filesystem>
#include <vector>

#include "compute/fdk/matrix.hpp"

namespace tomo::fdk {

// InputError naming the file and the line (text) or index (.npy) of a non-number, a non-finite
// value, a count that is not a multiple of 12, a wrong shape or dtype, or an empty file.
std::vector<Mat34> read_matrix_file(const std::filesystem::path& path);
// The 12 numbers of each matrix in the file's order (row by row): ASTRA's cone_vec rows read
// through the same reader come back as they were written.
std::vector<double> matrix_numbers(const std::vector<Mat34>& matrices);
// Full precision (17 significant digits), one projection per line.
void write_matrix_file(const std::filesystem::path& path, const std::vector<Mat34>& matrices);

}  // namespace tomo::fdk
