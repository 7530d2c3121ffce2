// RabbitCT file reader/writer (layout in rabbitct_file.hpp; notes/rabbitct-facts.md).
#include "compute/fdk/rabbitct_file.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <ostream>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/core/log.hpp"
#include "compute/io/atomic_file.hpp"

namespace tomo::fdk {

static_assert(std::endian::native == std::endian::little, "RabbitCT files are little-endian");

namespace {

std::string name_of(const std::filesystem::path& p) { return p.string(); }

void read_exact(std::ifstream& in, void* dst, std::size_t bytes, const std::filesystem::path& path,
                const char* what) {
  in.read(static_cast<char*>(dst), static_cast<std::streamsize>(bytes));
  if (static_cast<std::size_t>(in.gcount()) != bytes)
    throw InputError(str_cat(name_of(path), ": truncated while reading ", what));
}

// Splits `bytes` of trailing data into reference cube sides, or returns empty + ok=false.
std::vector<int> reference_sides(std::uint64_t bytes, bool& ok) {
  ok = true;
  if (bytes == 0) return {};
  if (bytes % 2 == 0) {
    const std::uint64_t voxels = bytes / 2;
    const auto L = static_cast<std::uint64_t>(std::llround(std::cbrt(static_cast<double>(voxels))));
    if (L > 0 && L * L * L == voxels) return {static_cast<int>(L)};
  }
  std::vector<int> sides;
  std::uint64_t sum = 0;
  for (int L : {128, 256, 512, 1024}) {
    sum += 2ull * L * L * L;
    sides.push_back(L);
    if (sum == bytes) return sides;
  }
  ok = false;
  return {};
}

}  // namespace

namespace {

// The header read as `version` from the first words of the file; `why` says what is wrong with
// it (empty when it is plausible and the file size fits it).
RabbitHeader parse_header(const std::uint32_t (&w)[6], int version, std::uint64_t file_bytes, std::string& why) {
  RabbitHeader h;
  h.version = version;
  const int o = version == 2 ? 1 : 0;
  h.sx = w[o];
  h.sy = w[o + 1];
  h.count = w[o + 2];
  std::memcpy(h.hu_scale.data(), &w[o + 3], 8);
  why.clear();
  if (file_bytes < h.bytes()) {
    why = str_cat("the file has ", file_bytes, " bytes, less than the ", h.bytes(), "-byte version-", version, " header");
  } else if (h.sx == 0 || h.sy == 0 || h.count == 0 || h.sx > 65536 || h.sy > 65536 || h.count > 1000000) {
    why = str_cat("implausible version-", version, " RabbitCT header (S_x=", h.sx, ", S_y=", h.sy, ", N=", h.count, ")");
  } else if (!std::isfinite(h.hu_scale[0]) || !std::isfinite(h.hu_scale[1])) {
    why = "HUScale in the header is not finite";
  } else {
    const std::uint64_t need = h.bytes() + h.count * (96ull + 4ull * h.sx * h.sy);
    bool ok = false;
    if (file_bytes < need)
      why = str_cat("file has ", file_bytes, " bytes, but its version-", version, " header (", h.sx, "x", h.sy, ", ",
                    h.count, " projections) needs at least ", need);
    else if (reference_sides(file_bytes - need, ok); !ok)
      why = str_cat(file_bytes - need, " trailing bytes after the projections are not uint16 reference volumes "
                                       "(one L³ cube or the 128³,256³,512³,1024³ sequence)");
  }
  return h;
}

}  // namespace

RabbitHeader read_rabbitct_header(const std::filesystem::path& path) {
  const std::uint64_t file_bytes = io::check_input_file(path, 64 * io::kGiB, "RabbitCT file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(str_cat(name_of(path), ": cannot open RabbitCT file"));
  std::uint32_t w[6] = {};
  in.read(reinterpret_cast<char*>(w), sizeof w);  // a short file leaves zeros; parse_header says why
  std::string why_v1, why_v2;
  if (w[0] == kRabbitVersion2) {
    const RabbitHeader h2 = parse_header(w, 2, file_bytes, why_v2);
    if (why_v2.empty()) return h2;
  }
  const RabbitHeader h1 = parse_header(w, 1, file_bytes, why_v1);
  if (why_v1.empty()) return h1;
  throw InputError(str_cat(name_of(path), ": ", w[0] == kRabbitVersion2 ? why_v2 : why_v1));
}

namespace {

// A projection matrix P = [M | p4] maps to the detector only if M is invertible (the source
// sits at −M⁻¹p4); RabbitCT's are pixel-scaled, so compare det(M) with the product of its
// rows' norms rather than with an absolute epsilon.
bool invertible(const Mat34& m) {
  const auto row = [&](int r) { return std::array<double, 3>{m.at(r, 0), m.at(r, 1), m.at(r, 2)}; };
  const auto a = row(0), b = row(1), c = row(2);
  const double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                     a[2] * (b[0] * c[1] - b[1] * c[0]);
  const auto norm = [](const std::array<double, 3>& r) { return std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]); };
  return std::abs(det) > 1e-9 * norm(a) * norm(b) * norm(c);
}

}  // namespace

RabbitData read_rabbitct(const std::filesystem::path& path, bool with_references) {
  const RabbitHeader h = read_rabbitct_header(path);  // sizes checked against the file there
  std::error_code ec;
  const std::uint64_t file_bytes = std::filesystem::file_size(path, ec);
  const std::uint64_t image_bytes = 4ull * h.sx * h.sy;
  const std::uint64_t proj_bytes = h.count * (96ull + image_bytes);
  bool ok = false;
  const std::vector<int> sides = reference_sides(file_bytes - h.bytes() - proj_bytes, ok);

  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(h.bytes()));
  RabbitData d;
  d.version = h.version;
  d.hu_scale = h.hu_scale;
  ProjectionStack& p = d.projections;
  p.sx = static_cast<int>(h.sx);
  p.sy = static_cast<int>(h.sy);
  p.matrices.resize(h.count);
  p.pixels.resize(static_cast<std::size_t>(h.count) * p.image_size());
  for (std::uint32_t n = 0; n < h.count; ++n) {
    read_exact(in, p.matrices[n].a.data(), 96, path, "a projection matrix");
    for (double v : p.matrices[n].a)
      if (!std::isfinite(v)) throw InputError(str_cat(name_of(path), ": projection ", n, " has a non-finite matrix"));
    if (!invertible(p.matrices[n]))
      throw InputError(str_cat(name_of(path), ": projection ", n,
                               " has a degenerate matrix (its left 3x3 part is singular: no source position)"));
    read_exact(in, p.image(static_cast<int>(n)), image_bytes, path, "projection pixels");
    const float* px = p.image(static_cast<int>(n));
    for (std::size_t i = 0; i < p.image_size(); ++i)
      if (!std::isfinite(px[i]))
        throw InputError(str_cat(name_of(path), ": projection ", n, " has a non-finite pixel at column ", i % h.sx,
                                 ", row ", i / h.sx, " (", px[i], ")"));
  }
  if (with_references) {
    for (int L : sides) {
      ReferenceVolume r;
      r.L = L;
      r.hu.resize(static_cast<std::size_t>(L) * L * L);
      read_exact(in, r.hu.data(), r.hu.size() * 2, path, "a reference volume");
      d.references.push_back(std::move(r));
    }
  }
  log_debug(name_of(path), ": RabbitCT version ", h.version, ", ", h.count, " projections ", h.sx, "x", h.sy, ", ", sides.size(), " reference volume(s)");
  return d;
}

void write_rabbitct(const std::filesystem::path& path, const RabbitData& d) {
  const ProjectionStack& p = d.projections;
  if (p.sx <= 0 || p.sy <= 0 || p.count() == 0 || p.pixels.size() != p.count() * p.image_size())
    throw Error(str_cat(name_of(path), ": inconsistent projection stack (", p.sx, "x", p.sy, ", ", p.count(),
                        " matrices, ", p.pixels.size(), " pixels)"));
  for (const auto& r : d.references)
    if (r.hu.size() != static_cast<std::size_t>(r.L) * r.L * r.L)
      throw Error(str_cat(name_of(path), ": reference volume of side ", r.L, " has ", r.hu.size(), " voxels"));
  if (d.version != 1 && d.version != 2)
    throw Error(str_cat(name_of(path), ": RabbitCT file version ", d.version, " (1 or 2)"));
  write_file_atomic(path, [&](std::ostream& out) {
    if (d.version == 2) out.write(reinterpret_cast<const char*>(&kRabbitVersion2), 4);
    const std::uint32_t u[3] = {static_cast<std::uint32_t>(p.sx), static_cast<std::uint32_t>(p.sy),
                                static_cast<std::uint32_t>(p.count())};
    out.write(reinterpret_cast<const char*>(u), sizeof u);
    out.write(reinterpret_cast<const char*>(d.hu_scale.data()), 8);
    for (int n = 0; n < p.count(); ++n) {
      out.write(reinterpret_cast<const char*>(p.matrices[n].a.data()), 96);
      out.write(reinterpret_cast<const char*>(p.image(n)), static_cast<std::streamsize>(p.image_size() * 4));
    }
    for (const auto& r : d.references)
      out.write(reinterpret_cast<const char*>(r.hu.data()), static_cast<std::streamsize>(r.hu.size() * 2));
  });
}

}  // namespace tomo::fdk

namespace tomo::fdk {

ReferenceVolume read_reference_volume(const std::filesystem::path& path, int L) {
  if (L < 1 || L > 4096) throw Error(str_cat("read_reference_volume: L = ", L));
  const std::uint64_t need = 2ull * L * L * L;
  const std::uint64_t bytes = io::check_input_file(path, need, "RabbitCT reference volume");
  if (bytes != need)
    throw InputError(str_cat(name_of(path), ": a ", L, "³ uint16 reference volume has ", need, " bytes, the file has ",
                             bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(str_cat(name_of(path), ": cannot open the reference volume"));
  ReferenceVolume r;
  r.L = L;
  r.hu.resize(static_cast<std::size_t>(need / 2));
  read_exact(in, r.hu.data(), need, path, "the reference volume");
  return r;
}

}  // namespace tomo::fdk
