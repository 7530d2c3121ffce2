// Users' raw projection stacks: .npy of shape (N, rows, cols), float32 or uint16, or NIfTI
// (cols × rows × N, read as stored); optionally intensities turned into line integrals ln(I₀/I).
#pragma once
#include <filesystem>
#include <vector>

namespace tomo::fdk {

struct RawStack {
  int count = 0, rows = 0, cols = 0;
  std::vector<float> pixels;  // projection n at n·rows·cols, pixel (i, j) at j·cols + i
};

// Sizes are checked against the file before anything is allocated; other dtypes, shapes that are
// not 3-D and non-finite values are InputErrors naming the file (and projection, row, column).
RawStack read_projection_stack(const std::filesystem::path& path);

// Whether the file starts with the .npy magic (users' files are told apart by content, not name).
bool has_npy_magic(const std::filesystem::path& path);

// I → ln(i0 / I) in place. Intensities <= 0 (dead pixels, photon starvation) are taken as
// i0·1e-6 (a line integral of 13.8) and counted; negative ones are refused naming the position.
// Returns how many were clamped.
std::size_t intensities_to_line_integrals(RawStack& s, double i0, const std::filesystem::path& path);

}  // namespace tomo::fdk
