// NumPy .npy arrays (format versions 1–3): the exchange format for users' own data (LOR
// counts, projection stacks, pressure traces). Little-endian numeric dtypes, C or Fortran
// order; sizes are checked against the file before anything is allocated.
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace tomo {

enum class NpyType { f4, f8, c8, c16, u1, u2, u4, u8, i1, i2, i4, i8, b1 };

struct NpyArray {
  NpyType type = NpyType::f4;
  std::vector<std::size_t> shape;  // as NumPy writes it (C order: last index fastest)
  bool fortran_order = false;
  std::vector<std::byte> bytes;  // the raw payload, little-endian
  std::string source;            // the file read (read_npy sets it), named in value errors

  std::size_t count() const;
  // The elements as float/double in C order (Fortran arrays are transposed); every value
  // must be finite, else InputError naming `what`, the file and the element's index
  // ("[2, 0, 5]"). Complex types refused.
  std::vector<float> to_float(const std::string& what) const;
  std::vector<double> to_double(const std::string& what) const;
  std::vector<std::complex<float>> to_complex_float(const std::string& what) const;
};

std::size_t npy_item_size(NpyType type);
const char* npy_descr(NpyType type);  // "<f4", ...

// Reads a .npy file; malformed header, unsupported dtype, big-endian data or a payload
// size that does not match the shape are InputError naming the file.
NpyArray read_npy(const std::filesystem::path& path);

// Checks the shape against what the caller expects: `expect` entries of 0 match any size.
// InputError naming `what`, the expected and the found shape.
void require_npy_shape(const NpyArray& a, std::span<const std::size_t> expect, const std::string& what);

// Writes C-order arrays atomically (version 1 header).
void write_npy(const std::filesystem::path& path, std::span<const float> data, std::span<const std::size_t> shape);
void write_npy(const std::filesystem::path& path, std::span<const double> data, std::span<const std::size_t> shape);
void write_npy(const std::filesystem::path& path, std::span<const std::complex<float>> data,
               std::span<const std::size_t> shape);
void write_npy(const std::filesystem::path& path, std::span<const std::uint16_t> data,
               std::span<const std::size_t> shape);
void write_npy(const std::filesystem::path& path, std::span<const std::int32_t> data,
               std::span<const std::size_t> shape);
// Any type, payload given as bytes (for writers of other element types and for tests).
void write_npy_bytes(const std::filesystem::path& path, NpyType type, const void* data,
                     std::span<const std::size_t> shape);

}  // namespace tomo
