// Users' raw projection stacks: .npy of shape (N, rows, cols), float32 or uint16, NIfTI
// (cols × rows × N, read as stored), TIFF (pages of rows × cols, or a folder of TIFF files taken
// in name order); laid out as today's (N, rows, cols), TIGRE's (the same) or ASTRA's (rows, N,
// cols); optionally intensities turned into line integrals ln(I₀/I).
#pragma once
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "compute/core/enum_name.hpp"

namespace tomo::fdk {

struct RawStack {
  int count = 0, rows = 0, cols = 0;
  std::vector<float> pixels;  // projection n at n·rows·cols, pixel (i, j) at j·cols + i
};

// fdk.layout: the order of the stored array's three axes (slowest first). `projections` (today's
// and TIGRE's): (N, rows, cols); `astra`: (rows, N, cols), ASTRA's projection data.
enum class StackLayout { projections, tigre, astra };
inline constexpr std::array<EnumName<StackLayout>, 3> kStackLayoutNames{
    {{"projections", StackLayout::projections}, {"tigre", StackLayout::tigre}, {"astra", StackLayout::astra}}};
// "(N, rows, cols)" or "(rows, N, cols)": what the stored axes mean under `layout`.
std::string layout_axes(StackLayout layout);

// Sizes are checked against the file before anything is allocated; other dtypes, shapes that are
// not 3-D and non-finite values are InputErrors naming the file (and projection, row, column).
// The array as stored: count, rows, cols are its axes 0, 1, 2 (see arrange_stack). A folder is
// read as its .tif/.tiff files in name order, their pages one after another.
RawStack read_projection_stack(const std::filesystem::path& path);

// The stored array rearranged to (N, rows, cols) as `layout` says; InputError for a side outside
// the limits after the rearrangement.
RawStack arrange_stack(RawStack stored, StackLayout layout, const std::filesystem::path& path);

// "(a, b, c)": a stored array's shape for messages.
std::string stored_shape(const RawStack& s);

// Whether the file starts with the .npy magic (users' files are told apart by content, not name).
bool has_npy_magic(const std::filesystem::path& path);

// I → ln(i0 / I) in place. Intensities <= 0 (dead pixels, photon starvation) are taken as
// i0·1e-6 (a line integral of 13.8) and counted; negative ones are refused naming the position.
// Returns how many were clamped.
std::size_t intensities_to_line_integrals(RawStack& s, double i0, const std::filesystem::path& path);

}  // namespace tomo::fdk
