// NIfTI-1 single-file (.nii) reader and writer. The 348-byte header is handled as a
// byte buffer at the offsets of nifti1.h, so either byte order is read the same way.
#include "compute/io/nifti.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <system_error>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/io/atomic_file.hpp"

namespace tomo {
namespace {

// Field offsets in the NIfTI-1 header (nifti1.h, struct nifti_1_header).
constexpr std::size_t kHeaderSize = 348;
constexpr std::size_t kVoxOffset = 352;  // header + 4-byte extension flag
constexpr std::size_t kOffSizeofHdr = 0, kOffDim = 40, kOffDatatype = 70, kOffBitpix = 72, kOffPixdim = 76,
                      kOffVoxOffset = 108, kOffSclSlope = 112, kOffSclInter = 116, kOffXyztUnits = 123,
                      kOffDescrip = 148, kOffQformCode = 252, kOffSformCode = 254, kOffQuatern = 256,
                      kOffQoffset = 268, kOffSrow = 280, kOffMagic = 344;

enum Datatype : std::int16_t {
  kUint8 = 2, kInt16 = 4, kInt32 = 8, kFloat32 = 16, kFloat64 = 64, kInt8 = 256, kUint16 = 512, kUint32 = 768
};

template <class T>
T byteswap_value(T v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  std::reverse(b, b + sizeof(T));
  std::memcpy(&v, b, sizeof(T));
  return v;
}

// A header as bytes in host order when writing; `swap` when the file has the other order.
struct HeaderBytes {
  std::array<unsigned char, kVoxOffset> b{};
  bool swap = false;

  template <class T>
  void put(std::size_t off, T v) { std::memcpy(b.data() + off, &v, sizeof(T)); }
  template <class T>
  T get(std::size_t off) const {
    T v;
    std::memcpy(&v, b.data() + off, sizeof(T));
    return swap ? byteswap_value(v) : v;
  }
};

std::size_t datatype_bytes(int datatype) {
  switch (datatype) {
    case kUint8: case kInt8: return 1;
    case kInt16: case kUint16: return 2;
    case kInt32: case kUint32: case kFloat32: return 4;
    case kFloat64: return 8;
    default: return 0;
  }
}

template <class T>
void convert(const unsigned char* src, std::size_t n, bool swap, float* dst) {
  #pragma omp parallel for schedule(static) if (n > (1u << 20))
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(n); ++i) {
    T v;
    std::memcpy(&v, src + static_cast<std::size_t>(i) * sizeof(T), sizeof(T));
    if (swap) v = byteswap_value(v);
    dst[i] = static_cast<float>(v);
  }
}

}  // namespace

void write_nifti(const std::filesystem::path& path, const VolumeF& volume) {
  const Grid3& g = volume.grid;
  for (int a = 0; a < 3; ++a) {
    if (g.dims[a] < 1 || g.dims[a] > std::numeric_limits<std::int16_t>::max())
      throw Error("write_nifti '" + path.string() + "': dimension " + std::to_string(a) + " = " +
                  std::to_string(g.dims[a]) + " is outside 1..32767");
    if (!(g.voxel_mm[a] > 0) || !std::isfinite(g.voxel_mm[a]))
      throw Error("write_nifti '" + path.string() + "': voxel size must be finite and > 0");
  }
  if (volume.data.size() != g.count())
    throw Error("write_nifti '" + path.string() + "': volume has " + std::to_string(volume.data.size()) +
                " samples, its grid says " + std::to_string(g.count()));

  HeaderBytes h;
  h.put<std::int32_t>(kOffSizeofHdr, static_cast<std::int32_t>(kHeaderSize));
  std::int16_t dim[8] = {3, 1, 1, 1, 1, 1, 1, 1};
  for (int a = 0; a < 3; ++a) dim[a + 1] = static_cast<std::int16_t>(g.dims[a]);
  for (int i = 0; i < 8; ++i) h.put<std::int16_t>(kOffDim + 2 * i, dim[i]);
  h.put<std::int16_t>(kOffDatatype, kFloat32);
  h.put<std::int16_t>(kOffBitpix, 32);
  float pixdim[8] = {1.0f, 0, 0, 0, 0, 0, 0, 0};  // pixdim[0] = qfac
  for (int a = 0; a < 3; ++a) pixdim[a + 1] = static_cast<float>(g.voxel_mm[a]);
  for (int i = 0; i < 8; ++i) h.put<float>(kOffPixdim + 4 * i, pixdim[i]);
  h.put<float>(kOffVoxOffset, static_cast<float>(kVoxOffset));
  h.put<float>(kOffSclSlope, 1.0f);
  h.put<float>(kOffSclInter, 0.0f);
  h.b[kOffXyztUnits] = 2;  // NIFTI_UNITS_MM
  std::memcpy(h.b.data() + kOffDescrip, "tomoraster", 10);
  h.put<std::int16_t>(kOffQformCode, 1);  // NIFTI_XFORM_SCANNER_ANAT
  h.put<std::int16_t>(kOffSformCode, 1);
  for (int i = 0; i < 3; ++i) h.put<float>(kOffQuatern + 4 * i, 0.0f);  // identity rotation
  for (int i = 0; i < 3; ++i) h.put<float>(kOffQoffset + 4 * i, static_cast<float>(g.origin_mm[i]));
  for (int r = 0; r < 3; ++r)  // srow = [diag(voxel) | origin]
    for (int c = 0; c < 4; ++c)
      h.put<float>(kOffSrow + 16 * r + 4 * c,
                   c == 3 ? static_cast<float>(g.origin_mm[r]) : (c == r ? static_cast<float>(g.voxel_mm[r]) : 0.0f));
  std::memcpy(h.b.data() + kOffMagic, "n+1\0", 4);
  // Bytes 348..351 stay zero: no extensions.

  write_file_atomic(path, [&](std::ostream& os) {
    os.write(reinterpret_cast<const char*>(h.b.data()), static_cast<std::streamsize>(h.b.size()));
    os.write(reinterpret_cast<const char*>(volume.data.data()),
             static_cast<std::streamsize>(volume.data.size() * sizeof(float)));
  });
}

namespace {

// The 348 header bytes, checked for size, byte order (sets `swap`) and magic.
HeaderBytes read_header(std::ifstream& in, const std::string& name, std::uintmax_t file_size) {
  HeaderBytes h;
  in.read(reinterpret_cast<char*>(h.b.data()), static_cast<std::streamsize>(kHeaderSize));
  if (in.gcount() >= 2 && h.b[0] == 0x1f && h.b[1] == 0x8b)
    throw InputError(name + ": gzip-compressed (.nii.gz) files are not supported; gunzip it first");
  if (static_cast<std::size_t>(in.gcount()) != kHeaderSize)
    throw InputError(name + ": file size is " + std::to_string(file_size) + " bytes, shorter than the 348-byte header");

  const auto sizeof_hdr = h.get<std::int32_t>(kOffSizeofHdr);
  if (sizeof_hdr != static_cast<std::int32_t>(kHeaderSize)) {
    h.swap = true;
    if (h.get<std::int32_t>(kOffSizeofHdr) != static_cast<std::int32_t>(kHeaderSize))
      throw InputError(name + ": not a NIfTI-1 file (sizeof_hdr = " + std::to_string(sizeof_hdr) + ", expected 348)");
  }
  if (std::memcmp(h.b.data() + kOffMagic, "n+1\0", 4) != 0) {
    if (std::memcmp(h.b.data() + kOffMagic, "ni1\0", 4) == 0)
      throw InputError(name + ": is a .hdr/.img pair header (magic 'ni1'); only single-file .nii is supported");
    throw InputError(name + ": bad magic (expected \"n+1\")");
  }
  return h;
}

// The image's dimensions (1..3 of them; higher ones must be 1).
Grid3 header_dims(const HeaderBytes& h, const std::string& name) {
  std::int16_t dim[8];
  for (int i = 0; i < 8; ++i) dim[i] = h.get<std::int16_t>(kOffDim + 2 * i);
  const int ndim = dim[0];
  if (ndim < 1 || ndim > 7) throw InputError(name + ": dim[0] = " + std::to_string(ndim) + " is outside 1..3");
  for (int i = 4; i <= ndim; ++i)
    if (dim[i] != 1)
      throw InputError(name + ": dim[0] = " + std::to_string(ndim) + " with dim[" + std::to_string(i) + "] = " +
                       std::to_string(dim[i]) + "; only 1..3 dimensional images are supported");
  Grid3 grid;
  for (int a = 0; a < 3; ++a) {
    const int n = (a + 1 <= ndim) ? dim[a + 1] : 1;
    if (n < 1) throw InputError(name + ": dim[" + std::to_string(a + 1) + "] = " + std::to_string(n) + " must be >= 1");
    grid.dims[a] = n;
  }
  return grid;
}

// Voxel sizes (1 mm, with a warning, where pixdim is unusable) and origin (sform, else qform).
void header_geometry(const HeaderBytes& h, const std::string& name, Grid3& grid) {
  const int ndim = h.get<std::int16_t>(kOffDim);
  for (int a = 0; a < 3; ++a) {
    const double p = std::fabs(static_cast<double>(h.get<float>(kOffPixdim + 4 * (a + 1))));
    if (std::isfinite(p) && p > 0) {
      grid.voxel_mm[a] = p;
    } else {
      if (a + 1 <= ndim) log_warn(name, ": pixdim[", a + 1, "] is ", p, "; using 1 mm");
      grid.voxel_mm[a] = 1.0;
    }
  }
  const bool use_sform = h.get<std::int16_t>(kOffSformCode) > 0;
  for (int a = 0; a < 3; ++a)
    grid.origin_mm[a] = use_sform ? h.get<float>(kOffSrow + 16 * a + 12) : h.get<float>(kOffQoffset + 4 * a);
}

// The voxel data's raw bytes at vox_offset, checked against the file size.
std::vector<unsigned char> read_raw(std::ifstream& in, const HeaderBytes& h, const std::string& name,
                                    std::uintmax_t file_size, const Grid3& grid, std::size_t bytes) {
  const double vox_offset_f = h.get<float>(kOffVoxOffset);
  if (!(vox_offset_f >= static_cast<double>(kHeaderSize)) || vox_offset_f > 1e12)
    throw InputError(name + ": vox_offset = " + std::to_string(vox_offset_f) + " is invalid (must be >= 348)");
  const auto vox_offset = static_cast<std::uintmax_t>(vox_offset_f);
  const std::uintmax_t data_bytes = static_cast<std::uintmax_t>(grid.count()) * bytes;
  if (file_size < vox_offset + data_bytes)
    throw InputError(name + ": file size is " + std::to_string(file_size) + " bytes, expected at least " +
                     std::to_string(vox_offset + data_bytes) + " (" + std::to_string(vox_offset) + " header + " +
                     std::to_string(grid.dims[0]) + "x" + std::to_string(grid.dims[1]) + "x" +
                     std::to_string(grid.dims[2]) + " voxels of " + std::to_string(bytes) + " bytes)");
  std::vector<unsigned char> raw(static_cast<std::size_t>(data_bytes));
  in.seekg(static_cast<std::streamoff>(vox_offset));
  in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
  if (static_cast<std::uintmax_t>(in.gcount()) != data_bytes) throw InputError(name + ": read error in the voxel data");
  return raw;
}

// The raw voxels as floats, scaled by scl_slope/scl_inter where those are set.
void decode(const std::vector<unsigned char>& raw, int datatype, const HeaderBytes& h, VolumeF& v) {
  const std::size_t n = v.grid.count();
  switch (datatype) {
    case kUint8: convert<std::uint8_t>(raw.data(), n, h.swap, v.data.data()); break;
    case kInt8: convert<std::int8_t>(raw.data(), n, h.swap, v.data.data()); break;
    case kInt16: convert<std::int16_t>(raw.data(), n, h.swap, v.data.data()); break;
    case kUint16: convert<std::uint16_t>(raw.data(), n, h.swap, v.data.data()); break;
    case kInt32: convert<std::int32_t>(raw.data(), n, h.swap, v.data.data()); break;
    case kUint32: convert<std::uint32_t>(raw.data(), n, h.swap, v.data.data()); break;
    case kFloat32: convert<float>(raw.data(), n, h.swap, v.data.data()); break;
    case kFloat64: convert<double>(raw.data(), n, h.swap, v.data.data()); break;
  }
  const double slope = h.get<float>(kOffSclSlope), inter = h.get<float>(kOffSclInter);
  if (slope != 0 && std::isfinite(slope) && std::isfinite(inter) && !(slope == 1 && inter == 0))
    for (float& x : v.data) x = static_cast<float>(slope * x + inter);
}

}  // namespace

VolumeF read_nifti(const std::filesystem::path& path) {
  const std::string name = "NIfTI file '" + path.string() + "'";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(name + ": no such file");
  const std::uintmax_t file_size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(name + ": cannot read its size: " + ec.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(name + ": cannot open for reading");

  const HeaderBytes h = read_header(in, name, file_size);
  Grid3 grid = header_dims(h, name);
  const int datatype = h.get<std::int16_t>(kOffDatatype);
  const std::size_t bytes = datatype_bytes(datatype);
  if (bytes == 0)
    throw InputError(name + ": datatype " + std::to_string(datatype) +
                     " is not supported (uint8, int8, int16, uint16, int32, uint32, float32, float64 are)");
  header_geometry(h, name, grid);
  const std::vector<unsigned char> raw = read_raw(in, h, name, file_size, grid, bytes);
  VolumeF v(grid);
  decode(raw, datatype, h, v);
  return v;
}

}  // namespace tomo
