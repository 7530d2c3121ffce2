// Interfile images: the data file read through the common input gate and checked against the
// parsed header before anything is allocated; the writer's header keys are STIR's
// (write_basic_interfile_image_header), float32 little-endian beside it in a `.v` file.
#include "compute/io/interfile.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/core/memory.hpp"
#include "compute/io/atomic_file.hpp"
#include "compute/io/input_file.hpp"

namespace tomo {
namespace {

constexpr std::uintmax_t kMaxHeaderBytes = io::kMiB;
constexpr std::uintmax_t kMaxDataBytes = 5 * io::kGiB;  // as NIfTI: the largest image as float64

template <class T>
void convert(const unsigned char* src, std::size_t n, bool swap, double scale, double inter, float* dst) {
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, src + i * sizeof(T), sizeof(T));
    if (swap) std::reverse(b, b + sizeof(T));
    T v;
    std::memcpy(&v, b, sizeof(T));
    dst[i] = static_cast<float>(scale * static_cast<double>(v) + inter);
  }
}

void convert_any(InterfileType t, const unsigned char* src, std::size_t n, bool swap, double scale, double inter,
                 float* dst) {
  switch (t) {
    case InterfileType::u8: convert<std::uint8_t>(src, n, swap, scale, inter, dst); break;
    case InterfileType::i8: convert<std::int8_t>(src, n, swap, scale, inter, dst); break;
    case InterfileType::u16: convert<std::uint16_t>(src, n, swap, scale, inter, dst); break;
    case InterfileType::i16: convert<std::int16_t>(src, n, swap, scale, inter, dst); break;
    case InterfileType::u32: convert<std::uint32_t>(src, n, swap, scale, inter, dst); break;
    case InterfileType::i32: convert<std::int32_t>(src, n, swap, scale, inter, dst); break;
    case InterfileType::f32: convert<float>(src, n, swap, scale, inter, dst); break;
    case InterfileType::f64: convert<double>(src, n, swap, scale, inter, dst); break;
  }
}

struct Parsed {
  InterfileHeader h;
  std::string name;  // "Interfile header 'a.hv'"
};

Parsed parse_file(const std::filesystem::path& header) {
  Parsed p;
  p.name = "Interfile header '" + header.string() + "'";
  const std::string text = io::input_file_bytes(header, kMaxHeaderBytes, "Interfile header");
  p.h = parse_interfile_header(text, p.name, header.parent_path());
  return p;
}

// All frames as floats, frame after frame (x fastest), after the data file's size was checked
// against the last frame's end and the host's memory against the voxel count.
std::vector<float> read_frames(const Parsed& p) {
  const InterfileHeader& h = p.h;
  const std::string data_name = "Interfile data file '" + h.data_file.string() + "' of " + p.name;
  const std::uintmax_t size = io::check_input_file(h.data_file, kMaxDataBytes, "Interfile data file");
  const std::size_t per_frame = static_cast<std::size_t>(h.dims[0]) * h.dims[1] * h.dims[2];
  const std::uint64_t frame_bytes = static_cast<std::uint64_t>(per_frame) * h.bytes;
  for (int f = 0; f < h.frames; ++f)
    if (h.frame_offset[f] + frame_bytes > size)
      throw InputError(data_name + ": holds " + std::to_string(size) + " bytes, the header asks for " +
                       std::to_string(h.frame_offset[f] + frame_bytes) + " (offset " + std::to_string(h.frame_offset[f]) +
                       " + " + std::to_string(h.dims[0]) + "x" + std::to_string(h.dims[1]) + "x" +
                       std::to_string(h.dims[2]) + " voxels of " + std::to_string(h.bytes) + " bytes" +
                       (h.frames > 1 ? ", frame " + std::to_string(f + 1) : std::string()) + ")");
  const double need = 4.0 * static_cast<double>(per_frame) * h.frames + static_cast<double>(frame_bytes);
  if (need > host_memory_available())
    throw InputError(data_name + ": its voxels need about " + format_bytes(need) + " of host memory, " +
                     format_bytes(host_memory_available()) + " available");
  std::ifstream in(h.data_file, std::ios::binary);
  if (!in) throw InputError(data_name + ": cannot open for reading");
  const bool swap = h.big_endian != (std::endian::native == std::endian::big);
  std::vector<float> out(per_frame * h.frames);
  std::vector<unsigned char> raw(static_cast<std::size_t>(frame_bytes));
  for (int f = 0; f < h.frames; ++f) {
    in.seekg(static_cast<std::streamoff>(h.frame_offset[f]));
    in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
    if (static_cast<std::uint64_t>(in.gcount()) != frame_bytes) throw InputError(data_name + ": read error");
    convert_any(h.type, raw.data(), per_frame, swap, h.frame_scale[f], h.intercept, out.data() + f * per_frame);
  }
  const std::size_t plane = static_cast<std::size_t>(h.dims[0]) * h.dims[1];
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!std::isfinite(out[i])) {
      const std::size_t v = i % per_frame;
      throw InputError(data_name + ": voxel (" + std::to_string(v % h.dims[0]) + ", " +
                       std::to_string((v / h.dims[0]) % h.dims[1]) + ", " + std::to_string(v / plane) + ")" +
                       (h.frames > 1 ? " of frame " + std::to_string(i / per_frame + 1) : std::string()) + " is " +
                       (std::isnan(out[i]) ? "NaN" : "infinite") + "; images must hold finite values");
    }
  return out;
}

Grid3 grid_of(const InterfileHeader& h) { return Grid3{h.dims, h.voxel_mm, h.origin_mm}; }

std::string number_text(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

void write_any(const std::filesystem::path& header, const Grid3& g, const std::vector<float>& data, int frames,
               double frame_s, const NiftiMeta& meta) {
  const std::string where = "write_interfile '" + header.string() + "'";
  for (int a = 0; a < 3; ++a) {
    if (g.dims[a] < 1) throw Error(where + ": dimension " + std::to_string(a) + " is " + std::to_string(g.dims[a]));
    if (!(g.voxel_mm[a] > 0) || !std::isfinite(g.voxel_mm[a]) || !std::isfinite(g.origin_mm[a]))
      throw Error(where + ": voxel size must be finite and > 0 and the origin finite");
  }
  if (frames < 1 || data.size() != g.count() * static_cast<std::size_t>(frames))
    throw Error(where + ": " + std::to_string(data.size()) + " samples for " + std::to_string(frames) +
                " frame(s) of " + std::to_string(g.count()) + " voxels");
  const std::filesystem::path data_path = interfile_data_path(header);
  if (data_path == header) throw Error(where + ": the header may not end in '.v' (that is its data file)");
  std::vector<float> le(data);
  if constexpr (std::endian::native == std::endian::big)
    for (float& v : le) {
      unsigned char b[4];
      std::memcpy(b, &v, 4);
      std::reverse(b, b + 4);
      std::memcpy(&v, b, 4);
    }
  write_bytes_atomic(data_path, le.data(), le.size() * sizeof(float));

  std::ostringstream o;
  o << "!INTERFILE :=\n"
    << "!imaging modality := PT\n"
    << "originating system := tomoraster\n"
    << "!version of keys := STIR6.0\n"
    << "name of data file := " << data_path.filename().string() << "\n"
    << "!GENERAL DATA :=\n"
    << "!GENERAL IMAGE DATA :=\n"
    << "!type of data := PET\n"
    << "imagedata byte order := LITTLEENDIAN\n"
    << "!PET STUDY (General) :=\n"
    << "!PET data type := Image\n"
    << "process status := Reconstructed\n"
    << "!number format := float\n"
    << "!number of bytes per pixel := 4\n"
    << "number of dimensions := 3\n";
  static const char* kAxis[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a)
    o << "matrix axis label [" << a + 1 << "] := " << kAxis[a] << "\n"
      << "!matrix size [" << a + 1 << "] := " << g.dims[a] << "\n"
      << "scaling factor (mm/pixel) [" << a + 1 << "] := " << number_text(g.voxel_mm[a]) << "\n";
  for (int a = 0; a < 3; ++a) o << "first pixel offset (mm) [" << a + 1 << "] := " << number_text(g.origin_mm[a]) << "\n";
  o << "number of time frames := " << frames << "\n";
  if (frames > 1) {
    const std::size_t frame_bytes = g.count() * sizeof(float);
    for (int f = 0; f < frames; ++f)
      o << "image duration (sec)[" << f + 1 << "] := " << number_text(frame_s) << "\n"
        << "image relative start time (sec)[" << f + 1 << "] := " << number_text(f * frame_s) << "\n"
        << "image scaling factor[" << f + 1 << "] := 1\n"
        << "data offset in bytes[" << f + 1 << "] := " << f * frame_bytes << "\n";
  }
  std::string q = meta.quantity.empty() ? "tomoraster" : meta.quantity;
  if (!meta.unit.empty()) q += " [" + meta.unit + "]";
  for (char& c : q)
    if (c == '\n' || c == '\r') c = ' ';
  o << "; tomoraster quantity: " << q << "\n"
    << "!END OF INTERFILE :=\n";
  write_text_atomic(header, o.str());
}

}  // namespace

std::filesystem::path interfile_data_path(const std::filesystem::path& header) {
  std::filesystem::path p = header;
  p.replace_extension(".v");
  return p;
}

VolumeF read_interfile(const std::filesystem::path& header) {
  NiftiMeta meta;
  return read_interfile(header, meta);
}

VolumeF read_interfile(const std::filesystem::path& header, NiftiMeta& meta) {
  const Parsed p = parse_file(header);
  if (p.h.frames != 1)
    throw InputError(p.name + ": holds " + std::to_string(p.h.frames) +
                     " time frames; one image is read here (a series is read with read_interfile_series)");
  VolumeF v;
  v.grid = grid_of(p.h);
  v.data = read_frames(p);
  meta.quantity = p.h.quantity;
  meta.unit = p.h.unit;
  meta.descrip = p.h.quantity;
  meta.orientation = "RAS";
  return v;
}

NiftiSeries read_interfile_series(const std::filesystem::path& header) {
  const Parsed p = parse_file(header);
  NiftiSeries s;
  s.grid = grid_of(p.h);
  s.frames = p.h.frames;
  s.frame_s = p.h.frame_s;
  s.data = read_frames(p);
  return s;
}

void write_interfile(const std::filesystem::path& header, const VolumeF& volume, const NiftiMeta& meta) {
  write_any(header, volume.grid, volume.data, 1, 0.0, meta);
}

void write_interfile(const std::filesystem::path& header, const NiftiSeries& series, const NiftiMeta& meta) {
  write_any(header, series.grid, series.data, series.frames, series.frame_s, meta);
}

}  // namespace tomo
