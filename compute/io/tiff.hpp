// TIFF images as detectors write them: one or more greyscale pages (8, 16 or 32-bit integers,
// signed or not, or 32/64-bit floats; strips or tiles; any compression libtiff decodes), read
// into float through libtiff. The writer is for tests, examples and seeds.
#pragma once
#include <cstddef>
#include <filesystem>
#include <span>
#include <vector>

namespace tomo::io {

struct TiffStack {
  int pages = 0, rows = 0, cols = 0;
  std::vector<float> pixels;  // page p at p·rows·cols, pixel (column i, row j) at j·cols + i
};

// Every page of `path`; all pages must have one size. InputError naming the file (and page) for
// anything libtiff refuses, colour or multi-sample pages, other sample formats, pages of
// different sizes, more decoded data than the file could hold, or non-finite values.
TiffStack read_tiff_stack(const std::filesystem::path& path);

enum class TiffSample { float32, uint16 };

// `pages` pages of rows × cols (uncompressed), written to a temporary file and renamed. uint16
// rounds and clamps to 0…65535.
void write_tiff_stack(const std::filesystem::path& path, std::span<const float> pixels, int pages, int rows, int cols,
                      TiffSample sample = TiffSample::float32);

}  // namespace tomo::io
