// Readers and writers of .clm.safir (+ crystal map) and CASToR list-mode (see list_io.hpp).
#include "compute/safir/list_io.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/core/log.hpp"
#include "compute/io/atomic_file.hpp"
#include "compute/io/text_lines.hpp"

namespace tomo::safir {

static_assert(std::endian::native == std::endian::little, "list-mode I/O assumes a little-endian host");

namespace {

constexpr std::size_t kClmHeader = 32;
constexpr char kSafirMagic[] = "SAFIR CListModeData";  // 19 characters + NUL
constexpr char kMupetMagic[] = "MUPET CListModeData";
constexpr std::size_t kMaxLine = 4096;

// The largest coincidence list read (8 bytes a record: 2·10^9 records) and crystal map.
constexpr std::uintmax_t kMaxListBytes = 16 * io::kGiB;
constexpr std::uintmax_t kMaxCrystalMapBytes = 64 * io::kMiB;

}  // namespace

void write_clm_safir(const std::filesystem::path& path, const ListMode& lm, const Scanner& sc) {
  write_file_atomic(path, [&](std::ostream& os) {
    char header[kClmHeader] = {};
    std::memcpy(header, kSafirMagic, sizeof kSafirMagic);
    os.write(header, kClmHeader);
    std::uint64_t last_ms = ~std::uint64_t{0};
    for (std::size_t i = 0; i < lm.events.size(); ++i) {
      if (!lm.time_s.empty()) {
        const auto ms = static_cast<std::uint64_t>(std::floor(lm.time_s[i] * 1000.0));
        if (ms != last_ms) {
          const std::uint64_t mark = (std::uint64_t{1} << 63) | (ms & ((std::uint64_t{1} << 48) - 1));
          os.write(reinterpret_cast<const char*>(&mark), 8);
          last_ms = ms;
        }
      }
      const Event e = lm.events[i];
      const std::uint64_t ra = e.a / sc.crystals, da = e.a % sc.crystals, rb = e.b / sc.crystals, db = e.b % sc.crystals;
      const std::uint64_t rec = ra | (rb << 8) | (da << 16) | (db << 32);
      os.write(reinterpret_cast<const char*>(&rec), 8);
    }
  });
}

ListMode read_clm_safir(const std::filesystem::path& path, const Scanner& sc) {
  const std::string name = path.string();
  const auto size = io::check_input_file(path, kMaxListBytes, "coincidence list");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(name + ": cannot open coincidence list");
  char header[kClmHeader] = {};
  if (size < kClmHeader || !in.read(header, kClmHeader))
    throw InputError(str_cat(name, ": ", size, " bytes, shorter than the 32-byte .clm.safir header"));
  if (std::memcmp(header, kSafirMagic, sizeof kSafirMagic) != 0 && std::memcmp(header, kMupetMagic, sizeof kMupetMagic) != 0)
    throw InputError(name + ": not a SAFIR coincidence list (the header does not start with \"SAFIR CListModeData\")");
  if ((size - kClmHeader) % 8 != 0)
    throw InputError(str_cat(name, ": ", size - kClmHeader, " bytes after the header is not a whole number of 8-byte records"));
  const std::size_t records = (size - kClmHeader) / 8;
  std::vector<std::uint64_t> raw(records);
  if (records && !in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(records * 8)))
    throw InputError(name + ": read failed");
  ListMode lm;
  double now = 0;
  bool marks = false;
  for (std::size_t i = 0; i < records; ++i) {
    const std::uint64_t r = raw[i];
    if (r >> 63) {
      const double t = static_cast<double>(r & ((std::uint64_t{1} << 48) - 1)) * 1e-3;
      if (marks && t < now) throw InputError(str_cat(name, ": time mark of record ", i, " goes back in time"));
      now = t;
      marks = true;
      continue;
    }
    const unsigned ra = r & 0xff, rb = (r >> 8) & 0xff, da = (r >> 16) & 0xffff, db = (r >> 32) & 0xffff;
    if (ra >= static_cast<unsigned>(sc.rings) || rb >= static_cast<unsigned>(sc.rings) ||
        da >= static_cast<unsigned>(sc.crystals) || db >= static_cast<unsigned>(sc.crystals))
      throw InputError(str_cat(name, ": record ", i, " has ring ", std::max(ra, rb), " / detector ", std::max(da, db),
                               " beyond the scanner's ", sc.rings, " rings × ", sc.crystals, " crystals (safir.rings, safir.crystals)"));
    if ((r >> 62) & 1) {
      ++lm.delayed;
      continue;
    }
    lm.events.push_back({sc.id(static_cast<int>(ra), static_cast<int>(da)), sc.id(static_cast<int>(rb), static_cast<int>(db))});
    lm.time_s.push_back(now);
  }
  lm.duration_s = marks ? now + 1e-3 : 0.0;
  if (!marks) lm.time_s.clear();
  return lm;
}

void write_crystal_map(const std::filesystem::path& path, const Scanner& sc) {
  std::ostringstream os;
  os << "# tomoraster SAFIR crystal map: ring det x y z (mm), " << sc.rings << " rings x " << sc.crystals << " crystals\n";
  os.precision(9);
  const auto pos = sc.positions();
  for (int r = 0; r < sc.rings; ++r)
    for (int d = 0; d < sc.crystals; ++d) {
      const auto& p = pos[sc.id(r, d)];
      os << r << '\t' << d << '\t' << p[0] << '\t' << p[1] << '\t' << p[2] << '\n';
    }
  write_text_atomic(path, os.str());
}

void check_crystal_map(const std::filesystem::path& path, const Scanner& sc, double tol) {
  const std::string name = path.string();
  io::check_input_file(path, kMaxCrystalMapBytes, "crystal map");
  std::ifstream in(path);
  if (!in) throw InputError(name + ": cannot open crystal map");
  const auto pos = sc.positions();
  std::vector<char> seen(pos.size(), 0);
  std::string line;
  std::size_t line_no = 0, rows = 0;
  while (read_bounded_line(in, line, kMaxLine)) {
    ++line_no;
    if (line.size() > kMaxLine || line.find('\0') != std::string::npos)
      throw InputError(str_cat(name, ":", line_no, ": not a text crystal map line"));
    for (char& c : line)
      if (c == ',' || c == '\t' || c == '\r') c = ' ';
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream ls(line);
    std::vector<double> v;
    for (double x; ls >> x;) v.push_back(x);
    if (!ls.eof() || (v.size() != 5 && v.size() != 6))
      throw InputError(str_cat(name, ":", line_no, ": expected 'ring det [layer] x y z'"));
    const double ring = v[0], det = v[1];
    const double* xyz = v.data() + v.size() - 3;
    if (!(ring >= 0 && ring < sc.rings && det >= 0 && det < sc.crystals) || ring != std::floor(ring) || det != std::floor(det))
      throw InputError(str_cat(name, ":", line_no, ": ring ", ring, " / detector ", det, " is not a crystal of the ",
                               sc.rings, " × ", sc.crystals, " scanner"));
    if (v.size() == 6 && v[2] != 0) continue;  // deeper layers of a multi-layer map: not this scanner's
    const std::uint32_t id = sc.id(static_cast<int>(ring), static_cast<int>(det));
    const auto& p = pos[id];
    const double dist = std::hypot(xyz[0] - p[0], xyz[1] - p[1], xyz[2] - p[2]);
    if (!(dist <= tol))
      throw InputError(str_cat(name, ":", line_no, ": crystal (", ring, ", ", det, ") at (", xyz[0], ", ", xyz[1], ", ",
                               xyz[2], ") mm is ", dist, " mm from the scene's scanner geometry"));
    if (seen[id]++) throw InputError(str_cat(name, ":", line_no, ": crystal (", ring, ", ", det, ") listed twice"));
    ++rows;
  }
  if (rows != pos.size())
    throw InputError(str_cat(name, ": lists ", rows, " crystals, the scanner has ", pos.size()));
}

}  // namespace tomo::safir
