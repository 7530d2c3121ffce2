// NIfTI-1 single-file reader (.nii, .nii.gz): the 348-byte header handled as a byte buffer at
// the offsets of nifti1.h, so either byte order is read the same way; sizes are checked before
// anything is allocated in proportion to what the header claims.
#include "compute/io/nifti.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <utility>
#include <string>
#include <system_error>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/memory.hpp"
#include "compute/io/gzip.hpp"
#include "compute/io/input_file.hpp"
#include "compute/io/nifti_layout.hpp"
#include "compute/io/orientation.hpp"

namespace tomo {
namespace {

using namespace nifti_layout;

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

// The largest image read, over all frames: 2^29 voxels (2 GiB as float: 812³, or 1024×1024×512).
// Checked from the header, before a byte of voxel data is inflated or allocated.
constexpr std::uint64_t kMaxVoxels = std::uint64_t{1} << 29;
// The largest file: the largest image as float64 with room for extensions.
constexpr std::uintmax_t kMaxFileBytes = 5 * io::kGiB;
// Voxel data are inflated and converted this many bytes at a time.
constexpr std::size_t kChunkBytes = std::size_t{16} << 20;

// Where the bytes come from: the file itself, or its gzip stream inflated on demand.
class Source {
 public:
  Source(const std::filesystem::path& path, const std::string& name) : name_(name) {
    file_size_ = io::check_input_file(path, kMaxFileBytes, "NIfTI file");
    in_.open(path, std::ios::binary);
    if (!in_) throw InputError(name + ": cannot open for reading");
    unsigned char magic[2] = {0, 0};
    in_.read(reinterpret_cast<char*>(magic), 2);
    in_.clear();
    in_.seekg(0);
    if (!is_gzip(magic, static_cast<std::size_t>(in_.good() ? 2 : 0))) return;
    std::vector<unsigned char> all(static_cast<std::size_t>(file_size_));  // the file's own size: bounded
    in_.read(reinterpret_cast<char*>(all.data()), static_cast<std::streamsize>(all.size()));
    if (static_cast<std::uintmax_t>(in_.gcount()) != file_size_) throw InputError(name + ": read error");
    gz_ = std::make_unique<GzipReader>(std::move(all), name);
  }
  std::size_t read(void* dst, std::size_t n) {
    if (gz_) return gz_->read(dst, n);
    in_.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
    return static_cast<std::size_t>(in_.gcount());
  }
  void skip(std::size_t n) {
    if (gz_) gz_->skip(n);
    else in_.seekg(static_cast<std::streamoff>(n), std::ios::cur);
  }
  bool gzip() const { return gz_ != nullptr; }
  // The most bytes there can be: the file size, or what its compressed bytes can inflate to.
  std::uint64_t limit() const { return gz_ ? gz_->max_output() : file_size_; }
  // "file size is N bytes" or "gzip data of N bytes": the start of a size message.
  std::string size_phrase() const {
    return gz_ ? "gzip data of " + std::to_string(file_size_) + " bytes can hold at most " + std::to_string(limit()) + " bytes"
               : "file size is " + std::to_string(file_size_) + " bytes";
  }

 private:
  std::string name_;
  std::uintmax_t file_size_ = 0;
  std::ifstream in_;
  std::unique_ptr<GzipReader> gz_;
};

// The 348 header bytes, checked for size, byte order (sets `swap`) and magic.
HeaderBytes read_header(Source& in, const std::string& name) {
  HeaderBytes h;
  const std::size_t got = in.read(h.b.data(), kHeaderSize);
  if (got != kHeaderSize)
    throw InputError(name + ": " + std::to_string(got) + " bytes, shorter than the 348-byte header");
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

// The image's dimensions x, y, z, t: 1..max_ndim of them (3 for a volume, 4 for a series);
// higher ones must be 1.
std::array<int, 4> header_dims(const HeaderBytes& h, const std::string& name, int max_ndim) {
  std::int16_t dim[8];
  for (int i = 0; i < 8; ++i) dim[i] = h.get<std::int16_t>(kOffDim + 2 * i);
  const int ndim = dim[0];
  const std::string range = "1.." + std::to_string(max_ndim);
  if (ndim < 1 || ndim > 7) throw InputError(name + ": dim[0] = " + std::to_string(ndim) + " is outside " + range);
  for (int i = max_ndim + 1; i <= ndim; ++i)
    if (dim[i] != 1)
      throw InputError(name + ": dim[0] = " + std::to_string(ndim) + " with dim[" + std::to_string(i) + "] = " +
                       std::to_string(dim[i]) + "; only " + range + " dimensional images are read here" +
                       (max_ndim == 3 && i == 4 ? " (a time series is read with read_nifti_series)" : ""));
  std::array<int, 4> dims{1, 1, 1, 1};
  for (int a = 0; a < max_ndim; ++a) {
    const int n = (a + 1 <= ndim) ? dim[a + 1] : 1;
    if (n < 1) throw InputError(name + ": dim[" + std::to_string(a + 1) + "] = " + std::to_string(n) + " must be >= 1");
    dims[a] = n;
  }
  return dims;
}

std::string dims_text(const std::array<int, 4>& d) {
  std::string s = std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
  return d[3] > 1 ? s + "x" + std::to_string(d[3]) : s;
}

// The voxel-to-world map: sform, else qform, else pixdim with qoffset (1 mm, with a warning,
// where pixdim is unusable).
Affine3 header_affine(const HeaderBytes& h, const std::string& name) {
  const int ndim = h.get<std::int16_t>(kOffDim);
  std::array<double, 3> pixdim{}, offset{};
  for (int a = 0; a < 3; ++a) {
    const double p = std::fabs(static_cast<double>(h.get<float>(kOffPixdim + 4 * (a + 1))));
    if (!(std::isfinite(p) && p > 0) && a + 1 <= ndim) log_warn(name, ": pixdim[", a + 1, "] is ", p, "; using 1 mm");
    pixdim[a] = std::isfinite(p) && p > 0 ? p : 1.0;
    offset[a] = h.get<float>(kOffQoffset + 4 * a);
  }
  Affine3 a;
  if (h.get<std::int16_t>(kOffSformCode) > 0) {
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) a.m[r][c] = h.get<float>(kOffSrow + 16 * r + 4 * c);
  } else if (h.get<std::int16_t>(kOffQformCode) > 0) {
    a = affine_from_quaternion(h.get<float>(kOffQuatern), h.get<float>(kOffQuatern + 4), h.get<float>(kOffQuatern + 8),
                               h.get<float>(kOffPixdim), pixdim, offset);
  } else {
    for (int r = 0; r < 3; ++r) a.m[r][r] = pixdim[r], a.m[r][3] = offset[r];
  }
  for (int r = 0; r < 3; ++r)
    if (!std::isfinite(a.m[r][3])) throw InputError(name + ": the origin (qoffset/srow) is not finite");
  return a;
}

// Raw voxels of one datatype into floats.
void convert_any(int datatype, const unsigned char* raw, std::size_t n, bool swap, float* out) {
  switch (datatype) {
    case kUint8: convert<std::uint8_t>(raw, n, swap, out); break;
    case kInt8: convert<std::int8_t>(raw, n, swap, out); break;
    case kInt16: convert<std::int16_t>(raw, n, swap, out); break;
    case kUint16: convert<std::uint16_t>(raw, n, swap, out); break;
    case kInt32: convert<std::int32_t>(raw, n, swap, out); break;
    case kUint32: convert<std::uint32_t>(raw, n, swap, out); break;
    case kFloat32: convert<float>(raw, n, swap, out); break;
    case kFloat64: convert<double>(raw, n, swap, out); break;
  }
}

// The voxels at vox_offset as floats (file order). The declared size is checked against the
// voxel cap and against what the file (or its gzip data) can hold before anything is read;
// the data are then inflated and converted piece by piece, the result growing only as bytes
// really arrive, and a gzip stream must end exactly where the declared data do.
std::vector<float> read_voxels(Source& in, const HeaderBytes& h, const std::string& name,
                               const std::array<int, 4>& dims, int datatype, std::size_t bytes) {
  const std::uint64_t n = static_cast<std::uint64_t>(dims[0]) * dims[1] * dims[2] * dims[3];
  if (n > kMaxVoxels)
    throw InputError(name + ": the header declares " + dims_text(dims) + " = " + std::to_string(n) +
                     " voxels, more than the " + std::to_string(kMaxVoxels) + " an image may have");
  const double vox_offset_f = h.get<float>(kOffVoxOffset);
  if (!(vox_offset_f >= static_cast<double>(kHeaderSize)) || vox_offset_f > 1e12)
    throw InputError(name + ": vox_offset = " + std::to_string(vox_offset_f) + " is invalid (must be >= 348)");
  const auto vox_offset = static_cast<std::uint64_t>(vox_offset_f);
  const std::uint64_t data_bytes = n * bytes;
  if (in.limit() < vox_offset + data_bytes)
    throw InputError(name + ": " + in.size_phrase() + ", expected at least " + std::to_string(vox_offset + data_bytes) +
                     " (" + std::to_string(vox_offset) + " header + " + dims_text(dims) + " voxels of " +
                     std::to_string(bytes) + " bytes)");
  // A file that really is that large still has to fit: the floats and a reoriented copy.
  const double need = 8.0 * static_cast<double>(n);
  if (need > host_memory_available())
    throw InputError(name + ": its " + dims_text(dims) + " voxels need about " + format_bytes(need) +
                     " of host memory, " + format_bytes(host_memory_available()) + " available");
  in.skip(static_cast<std::size_t>(vox_offset - kHeaderSize));
  std::vector<float> v;
  // An uncompressed file has been seen to hold them all; gzip data must prove it as they inflate.
  v.reserve(static_cast<std::size_t>(in.gzip() ? std::min<std::uint64_t>(n, kChunkBytes / 4) : n));
  std::vector<unsigned char> raw(static_cast<std::size_t>(std::min<std::uint64_t>(data_bytes, kChunkBytes)));
  const std::size_t per_chunk = raw.size() / bytes;
  std::uint64_t done = 0;
  while (done < n) {
    const std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(per_chunk, n - done));
    const std::size_t got = in.read(raw.data(), count * bytes);
    if (got != count * bytes)
      throw InputError(name + ": the voxel data end after " + std::to_string(done * bytes + got) + " of " +
                       std::to_string(data_bytes) + " bytes");
    if (v.capacity() < v.size() + count)
      v.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, 2 * (v.size() + count))));
    v.resize(v.size() + count);
    convert_any(datatype, raw.data(), count, h.swap, v.data() + done);
    done += count;
  }
  unsigned char extra = 0;
  if (in.gzip() && in.read(&extra, 1) != 0)
    throw InputError(name + ": the gzip data hold more than the " + std::to_string(vox_offset + data_bytes) +
                     " bytes its header declares (" + dims_text(dims) + " voxels of " + std::to_string(bytes) +
                     " bytes)");
  return v;
}

// Scales by scl_slope/scl_inter where those are set; a non-finite value is refused with its
// voxel index (and frame, in a series).
void scale_and_check(std::vector<float>& v, const HeaderBytes& h, const std::array<int, 4>& dims,
                     const std::string& name) {
  const double slope = h.get<float>(kOffSclSlope), inter = h.get<float>(kOffSclInter);
  if (slope != 0 && std::isfinite(slope) && std::isfinite(inter) && !(slope == 1 && inter == 0))
    for (float& x : v) x = static_cast<float>(slope * x + inter);
  const std::size_t plane = static_cast<std::size_t>(dims[0]) * dims[1], frame = plane * dims[2];
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) {
      const std::size_t x = i % dims[0], y = (i / dims[0]) % dims[1], z = (i / plane) % dims[2], t = i / frame;
      throw InputError(name + ": voxel (" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) +
                       ")" + (dims[3] > 1 ? " of frame " + std::to_string(t) : std::string()) + " (value " +
                       std::to_string(i) + " of the data) is " + (std::isnan(v[i]) ? "NaN" : "infinite") +
                       " (after scaling to float); images must hold finite values");
    }
}

std::string trimmed_descrip(const HeaderBytes& h) {
  const char* p = reinterpret_cast<const char*>(h.b.data() + kOffDescrip);
  return std::string(p, strnlen(p, 80));
}

// "quantity [unit]" back into its parts; anything else is all quantity.
void parse_descrip(NiftiMeta& meta) {
  const std::string& d = meta.descrip;
  const std::size_t open = d.rfind(" [");
  if (!d.empty() && d.back() == ']' && open != std::string::npos) {
    meta.quantity = d.substr(0, open);
    meta.unit = d.substr(open + 2, d.size() - open - 3);
  } else {
    meta.quantity = d, meta.unit.clear();
  }
}

}  // namespace

namespace {

// A file read up to its voxels: header, dims (x, y, z, t), voxel-to-world map and floats in
// file order; `meta` filled from the header.
struct ReadFile {
  HeaderBytes h;
  std::array<int, 4> dims{};
  Affine3 affine;
  std::vector<float> data;
};

ReadFile read_file(const std::filesystem::path& path, const std::string& name, NiftiMeta& meta, int max_ndim) {
  Source in(path, name);
  ReadFile r;
  r.h = read_header(in, name);
  r.dims = header_dims(r.h, name, max_ndim);
  const int datatype = r.h.get<std::int16_t>(kOffDatatype);
  const std::size_t bytes = datatype_bytes(datatype);
  if (bytes == 0)
    throw InputError(name + ": datatype " + std::to_string(datatype) +
                     " is not supported (uint8, int8, int16, uint16, int32, uint32, float32, float64 are)");
  r.affine = header_affine(r.h, name);
  r.data = read_voxels(in, r.h, name, r.dims, datatype, bytes);
  scale_and_check(r.data, r.h, r.dims, name);
  meta.descrip = trimmed_descrip(r.h);
  parse_descrip(meta);
  meta.cal_min = r.h.get<float>(kOffCalMin);
  meta.cal_max = r.h.get<float>(kOffCalMax);
  meta.orientation = orientation_code(r.affine);
  return r;
}

// pixdim[4] in seconds, from the time unit of xyzt_units (s, ms or µs; none taken as s).
double frame_seconds(const HeaderBytes& h) {
  const double dt = h.get<float>(kOffPixdim + 16);
  if (!(std::isfinite(dt) && dt >= 0)) return 0.0;
  switch (h.b[kOffXyztUnits] & 0x38) {
    case 16: return dt * 1e-3;
    case 24: return dt * 1e-6;
    default: return dt;
  }
}

}  // namespace

VolumeF read_nifti(const std::filesystem::path& path) {
  NiftiMeta meta;
  return read_nifti(path, meta);
}

VolumeF read_nifti(const std::filesystem::path& path, NiftiMeta& meta, NiftiAxes axes) {
  const std::string name = "NIfTI file '" + path.string() + "'";
  ReadFile r = read_file(path, name, meta, 3);
  const std::array<int, 3> dims{r.dims[0], r.dims[1], r.dims[2]};
  if (axes == NiftiAxes::File) {  // an array: the file's index order, spacing from pixdim
    VolumeF v;
    v.grid.dims = dims;
    for (int a = 0; a < 3; ++a) {
      const double p = std::fabs(static_cast<double>(r.h.get<float>(kOffPixdim + 4 * (a + 1))));
      v.grid.voxel_mm[a] = std::isfinite(p) && p > 0 ? p : 1.0;
      v.grid.origin_mm[a] = r.affine.m[a][3];
    }
    v.data = std::move(r.data);
    return v;
  }
  if (meta.orientation != "RAS" && meta.orientation != "oblique")
    log_info(name, ": axes stored as ", meta.orientation, "; permuted and flipped into our RAS frame");
  return reorient_to_ras(std::move(r.data), dims, r.affine, name);
}

NiftiSeries read_nifti_series(const std::filesystem::path& path, NiftiMeta& meta) {
  const std::string name = "NIfTI file '" + path.string() + "'";
  ReadFile r = read_file(path, name, meta, 4);
  const std::array<int, 3> dims{r.dims[0], r.dims[1], r.dims[2]};
  const std::size_t frame = static_cast<std::size_t>(dims[0]) * dims[1] * dims[2];
  if (meta.orientation != "RAS" && meta.orientation != "oblique")
    log_info(name, ": axes stored as ", meta.orientation, "; permuted and flipped into our RAS frame");
  NiftiSeries s;
  s.frames = r.dims[3];
  s.frame_s = s.frames > 1 ? frame_seconds(r.h) : 0.0;
  s.data.reserve(r.data.size());
  for (int t = 0; t < s.frames; ++t) {
    std::vector<float> one(r.data.begin() + static_cast<std::ptrdiff_t>(t * frame),
                           r.data.begin() + static_cast<std::ptrdiff_t>((t + 1) * frame));
    VolumeF v = reorient_to_ras(std::move(one), dims, r.affine, name);
    if (t == 0) s.grid = v.grid;
    s.data.insert(s.data.end(), v.data.begin(), v.data.end());
  }
  return s;
}

NiftiSeries read_nifti_series(const std::filesystem::path& path) {
  NiftiMeta meta;
  return read_nifti_series(path, meta);
}

}  // namespace tomo
