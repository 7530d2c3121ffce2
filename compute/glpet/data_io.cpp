// glpet measured-data readers and writers (formats in data_io.hpp and docs/glpet.md §5).
#include "compute/glpet/data_io.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/core/log.hpp"
#include "compute/io/atomic_file.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/npy.hpp"
#include "compute/io/text_lines.hpp"

namespace tomo::glpet {

static_assert(std::endian::native == std::endian::little, "list-mode I/O assumes a little-endian host");
static_assert(sizeof(ListModeEvent) == 16, "an event is four uint32 on file");

namespace {

// The largest inputs read: counts as .npy or .nii (one float per LOR: far below this), and
// list-mode files (8 bytes an event: 10^9 events).
constexpr std::uintmax_t kMaxCountsBytes = 16 * io::kGiB;
constexpr std::uintmax_t kMaxListModeBytes = 16 * io::kGiB;

constexpr std::size_t kMaxTextLine = 1024;  // four numbers need < 60 bytes; comments are short

bool has_extension(const std::filesystem::path& p, const char* ext) { return p.extension() == ext; }
bool is_nifti(const std::filesystem::path& p) {
  const std::string n = p.filename().string();
  return n.ends_with(".nii") || n.ends_with(".nii.gz");
}

// All pairs of one size: the 5-D array layout applies.
bool uniform(const Scanner& sc) {
  for (const auto& p : sc.pairs)
    if (p.n_a() != sc.pairs[0].n_a() || p.n_t() != sc.pairs[0].n_t()) return false;
  return !sc.pairs.empty();
}

// (pair, i0, j0, i1, j1) of a flat LOR index, for messages.
std::string lor_name(const Scanner& sc, std::size_t l) {
  std::size_t p = 0;
  while (p + 1 < sc.pairs.size() && sc.lor_offset(p + 1) <= l) ++p;
  const ModulePair& mp = sc.pairs[p];
  const std::size_t in = l - sc.lor_offset(p), u = in % mp.atlas_width(), v = in / mp.atlas_width();
  return str_cat("pair ", p, " (p, q, r, s) = (", u / mp.n_a(), ", ", v / mp.n_t(), ", ", u % mp.n_a(), ", ",
                 v % mp.n_t(), ")");
}

void check_counts(const std::filesystem::path& path, const Scanner& sc, std::span<const float> c) {
  for (std::size_t l = 0; l < c.size(); ++l) {
    if (!std::isfinite(c[l])) throw InputError(str_cat(path.string(), ": count ", c[l], " at ", lor_name(sc, l), " is not finite"));
    if (c[l] < 0) throw InputError(str_cat(path.string(), ": negative count ", c[l], " at ", lor_name(sc, l)));
  }
}

std::string shape_text(std::span<const std::size_t> s) {
  std::string t = "(";
  for (std::size_t i = 0; i < s.size(); ++i) t += str_cat(i ? ", " : "", s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

std::vector<float> counts_from_npy(const std::filesystem::path& path, const Scanner& sc) {
  const NpyArray a = read_npy(path);
  const std::size_t L = sc.lor_count();
  const std::size_t P = sc.pairs.size();
  std::vector<std::size_t> five;
  if (uniform(sc)) {
    const std::size_t na = std::size_t(sc.pairs[0].n_a()), nt = std::size_t(sc.pairs[0].n_t());
    five = {P, na, nt, na, nt};
  }
  if (a.shape == std::vector<std::size_t>{L}) {
    std::vector<float> c = a.to_float(path.string());
    check_counts(path, sc, c);
    return c;
  }
  if (five.empty() || a.shape != five)
    throw InputError(str_cat(path.string(), ": LOR counts of shape ", shape_text(a.shape), " do not fit the scanner: expected ",
                             five.empty() ? "" : shape_text(five) + " [pair, p, q, r, s] or ", shape_text(std::vector{L}),
                             " (", P, " pairs, ", L, " LORs)"));
  const std::vector<float> in = a.to_float(path.string());
  std::vector<float> c(L);
  const int na = sc.pairs[0].n_a(), nt = sc.pairs[0].n_t();
  std::size_t f = 0;  // C order: j1 fastest
  for (std::size_t p = 0; p < P; ++p)
    for (int i0 = 0; i0 < na; ++i0)
      for (int j0 = 0; j0 < nt; ++j0)
        for (int i1 = 0; i1 < na; ++i1)
          for (int j1 = 0; j1 < nt; ++j1) c[sc.lor_offset(p) + sc.pairs[p].lor_index(i0, j0, i1, j1)] = in[f++];
  check_counts(path, sc, c);
  return c;
}

std::vector<float> counts_from_nifti(const std::filesystem::path& path, const Scanner& sc) {
  if (!uniform(sc))
    throw InputError(str_cat(path.string(), ": a .nii atlas needs pairs of one size; give the counts as .npy of shape (",
                             sc.lor_count(), ",)"));
  const VolumeF v = read_nifti(path);
  const std::array<int, 3> want{sc.pairs[0].atlas_width(), sc.pairs[0].atlas_height(), int(sc.pairs.size())};
  if (v.grid.dims != want)
    throw InputError(str_cat(path.string(), ": atlas volume of ", v.grid.dims[0], " x ", v.grid.dims[1], " x ",
                             v.grid.dims[2], " does not fit the scanner: expected N_a^2 x N_t^2 x pairs = ", want[0],
                             " x ", want[1], " x ", want[2]));
  check_counts(path, sc, v.data);
  return v.data;
}

// Where each module's events go: its detector count and the pairs it forms.
struct EventMap {
  struct Target {
    std::size_t pair;
    bool swapped;  // the event's module_a is the pair's second module
  };
  int modules = 0;
  std::vector<std::array<int, 2>> dims;  // (N_a, N_t) per module, (0, 0) when in no pair
  std::unordered_map<std::uint64_t, std::vector<Target>> targets;

  explicit EventMap(const Scanner& sc) : modules(sc.module_count()), dims(std::size_t(modules), {0, 0}) {
    for (std::size_t p = 0; p < sc.pairs.size(); ++p) {
      const auto ids = sc.module_ids(p);
      for (int k = 0; k < 2; ++k) dims[ids[k]] = {sc.pairs[p].modules[k].n_a, sc.pairs[p].modules[k].n_t};
      targets[key(ids[0], ids[1])].push_back({p, false});
      targets[key(ids[1], ids[0])].push_back({p, true});
    }
  }
  std::uint64_t key(std::uint64_t a, std::uint64_t b) const { return a * std::uint64_t(modules) + b; }

  // Adds one event to the counts; `where` names the file and position for the message.
  void add(const Scanner& sc, const ListModeEvent& e, std::vector<float>& counts, const std::string& where) const {
    const std::uint32_t m[2] = {e.module_a, e.module_b}, d[2] = {e.detector_a, e.detector_b};
    for (int k = 0; k < 2; ++k) {
      if (m[k] >= std::uint32_t(modules))
        throw InputError(str_cat(where, ": module ", m[k], " is not in the scanner (modules 0..", modules - 1, ")"));
      const auto& nd = dims[m[k]];
      if (nd[0] == 0) throw InputError(str_cat(where, ": module ", m[k], " is in no pair of the scanner"));
      if (d[k] >= std::uint32_t(nd[0] * nd[1]))
        throw InputError(str_cat(where, ": detector ", d[k], " is not on module ", m[k], " (", nd[0], " x ", nd[1],
                                 " detectors: 0..", nd[0] * nd[1] - 1, ")"));
    }
    const auto it = targets.find(key(m[0], m[1]));
    if (it == targets.end())
      throw InputError(str_cat(where, ": modules ", m[0], " and ", m[1], " form no pair of the scanner"));
    for (const Target& t : it->second) {
      const ModulePair& mp = sc.pairs[t.pair];
      const std::uint32_t first = t.swapped ? d[1] : d[0], second = t.swapped ? d[0] : d[1];
      const int na = mp.n_a();
      counts[sc.lor_offset(t.pair) +
             mp.lor_index(int(first % na), int(first / na), int(second % na), int(second / na))] += 1.0f;
    }
  }
};

std::vector<float> listmode_binary(const std::filesystem::path& path, const Scanner& sc) {
  const std::uintmax_t size = io::check_input_file(path, kMaxListModeBytes, "list-mode file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(str_cat(path.string(), ": cannot open list-mode file"));
  char h[kGlpetListModeHeaderBytes];
  if (size < sizeof h || !in.read(h, sizeof h))
    throw InputError(str_cat(path.string(), ": too short for a glpet list-mode header (", size, " bytes)"));
  std::uint32_t version, modules, reserved;
  std::uint64_t count;
  std::memcpy(&version, h + 4, 4);
  std::memcpy(&modules, h + 8, 4);
  std::memcpy(&reserved, h + 12, 4);
  std::memcpy(&count, h + 16, 8);
  if (version != kGlpetListModeVersion)
    throw InputError(str_cat(path.string(), ": glpet list-mode version ", version, " (this reader knows ",
                             kGlpetListModeVersion, ")"));
  if (reserved != 0) throw InputError(str_cat(path.string(), ": header bytes 12-15 must be 0, got ", reserved));
  const EventMap map(sc);
  if (modules != std::uint32_t(map.modules))
    throw InputError(str_cat(path.string(), ": written for a scanner of ", modules, " modules; the scene has ",
                             map.modules));
  constexpr std::size_t eb = sizeof(ListModeEvent);
  if (count > (size - sizeof h) / eb || size != sizeof h + count * eb)
    throw InputError(str_cat(path.string(), ": size ", size, " bytes does not match the header's ", count,
                             " events (expected ", sizeof h, " + 16 per event)"));
  std::vector<float> counts(sc.lor_count(), 0.0f);
  std::vector<ListModeEvent> chunk(1 << 16);  // bounded buffer: the histogram is what is kept
  for (std::uint64_t done = 0; done < count;) {
    const std::size_t n = std::size_t(std::min<std::uint64_t>(chunk.size(), count - done));
    if (!in.read(reinterpret_cast<char*>(chunk.data()), std::streamsize(n * eb)))
      throw InputError(str_cat(path.string(), ": read failed at event ", done));
    for (std::size_t i = 0; i < n; ++i)
      map.add(sc, chunk[i], counts,
              str_cat(path.string(), ": event ", done + i, " (byte ", sizeof h + (done + i) * eb, ")"));
    done += n;
  }
  return counts;
}

std::vector<float> listmode_text(const std::filesystem::path& path, const Scanner& sc) {
  std::ifstream in(path);
  if (!in) throw InputError(str_cat(path.string(), ": cannot open list-mode text file"));
  const EventMap map(sc);
  std::vector<float> counts(sc.lor_count(), 0.0f);
  std::string line;
  for (std::size_t line_no = 1; read_bounded_line(in, line, kMaxTextLine); ++line_no) {
    const std::string where = str_cat(path.string(), ":", line_no);
    if (line.size() > kMaxTextLine || line.find('\0') != std::string::npos)
      throw InputError(str_cat(where, ": ", line.size() > kMaxTextLine ? "a line longer than 1024 bytes" : "binary data",
                               ": not a glpet list-mode text file ('module_a detector_a module_b detector_b' per "
                               "line) nor a binary one"));
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream ls(line);
    long long v[4];
    std::string extra;
    if (!(ls >> v[0] >> v[1] >> v[2] >> v[3]) || (ls >> extra))
      throw InputError(str_cat(where, ": expected four whole numbers 'module_a detector_a module_b detector_b', got '",
                               line.size() > 60 ? line.substr(0, 60) + "..." : line, "'"));
    for (long long x : v)
      if (x < 0 || x > 0xffffffffLL) throw InputError(str_cat(where, ": index ", x, " is out of range"));
    map.add(sc, {std::uint32_t(v[0]), std::uint32_t(v[1]), std::uint32_t(v[2]), std::uint32_t(v[3])}, counts, where);
  }
  return counts;
}

}  // namespace

std::vector<float> read_counts(const std::filesystem::path& path, const Scanner& sc) {
  io::check_input_file(path, kMaxCountsBytes, "counts file");
  if (is_nifti(path)) return counts_from_nifti(path, sc);
  return counts_from_npy(path, sc);
}

void write_counts(const std::filesystem::path& path, const Scanner& sc, std::span<const float> lors) {
  if (lors.size() != sc.lor_count()) throw Error("glpet write_counts: size mismatch");
  if (is_nifti(path)) {
    if (!uniform(sc)) throw InputError(str_cat(path.string(), ": a .nii atlas needs pairs of one size; write .npy"));
    VolumeF v;
    v.grid.dims = {sc.pairs[0].atlas_width(), sc.pairs[0].atlas_height(), int(sc.pairs.size())};
    v.data.assign(lors.begin(), lors.end());
    write_nifti(path, v);
    return;
  }
  if (!has_extension(path, ".npy")) throw InputError(str_cat(path.string(), ": LOR counts are written as .npy or .nii"));
  if (!uniform(sc)) {
    const std::size_t shape[1] = {lors.size()};
    write_npy(path, lors, shape);
    return;
  }
  const int na = sc.pairs[0].n_a(), nt = sc.pairs[0].n_t();
  std::vector<float> out;
  out.reserve(lors.size());
  for (std::size_t p = 0; p < sc.pairs.size(); ++p)
    for (int i0 = 0; i0 < na; ++i0)
      for (int j0 = 0; j0 < nt; ++j0)
        for (int i1 = 0; i1 < na; ++i1)
          for (int j1 = 0; j1 < nt; ++j1) out.push_back(lors[sc.lor_offset(p) + sc.pairs[p].lor_index(i0, j0, i1, j1)]);
  const std::size_t shape[5] = {sc.pairs.size(), std::size_t(na), std::size_t(nt), std::size_t(na), std::size_t(nt)};
  write_npy(path, out, shape);
}

std::vector<float> read_listmode(const std::filesystem::path& path, const Scanner& sc) {
  io::check_input_file(path, kMaxListModeBytes, "list-mode file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(str_cat(path.string(), ": cannot open list-mode file"));
  char magic[4] = {};
  in.read(magic, 4);
  if (in.gcount() == 4 && std::memcmp(magic, kGlpetListModeMagic, 4) == 0) return listmode_binary(path, sc);
  return listmode_text(path, sc);
}

std::vector<ListModeEvent> listmode_events(const Scanner& sc, std::span<const float> lors) {
  if (lors.size() != sc.lor_count()) throw Error("glpet listmode_events: size mismatch");
  std::vector<ListModeEvent> out;
  for (std::size_t p = 0; p < sc.pairs.size(); ++p) {
    const auto ids = sc.module_ids(p);
    bool duplicate = false;  // a second pair of the same modules gets the same events on reading
    for (std::size_t q = 0; q < p; ++q) {
      const auto o = sc.module_ids(q);
      duplicate = duplicate || (o == ids) || (o[0] == ids[1] && o[1] == ids[0]);
    }
    if (duplicate) continue;
    const ModulePair& mp = sc.pairs[p];
    const int na = mp.n_a(), nt = mp.n_t();
    for (int v = 0; v < mp.atlas_height(); ++v)
      for (int u = 0; u < mp.atlas_width(); ++u) {
        const float c = lors[sc.lor_offset(p) + std::size_t(v) * mp.atlas_width() + u];
        if (!(c >= 0) || c != std::floor(c) || c > 1e9f)
          throw InputError(str_cat("glpet: LOR count ", c, " at ", lor_name(sc, sc.lor_offset(p) + std::size_t(v) * mp.atlas_width() + u),
                                   " is not a whole number of events"));
        const int i0 = u / na, i1 = u % na, j0 = v / nt, j1 = v % nt;
        const ListModeEvent e{std::uint32_t(ids[0]), std::uint32_t(i0 + na * j0), std::uint32_t(ids[1]),
                              std::uint32_t(i1 + na * j1)};
        out.insert(out.end(), std::size_t(c), e);
      }
  }
  return out;
}

void write_listmode_binary(const std::filesystem::path& path, const Scanner& sc, std::span<const ListModeEvent> ev) {
  write_file_atomic(path, [&](std::ostream& os) {
    char h[kGlpetListModeHeaderBytes] = {};
    const std::uint32_t version = kGlpetListModeVersion, modules = std::uint32_t(sc.module_count());
    const std::uint64_t count = ev.size();
    std::memcpy(h, kGlpetListModeMagic, 4);
    std::memcpy(h + 4, &version, 4);
    std::memcpy(h + 8, &modules, 4);
    std::memcpy(h + 16, &count, 8);
    os.write(h, sizeof h);
    os.write(reinterpret_cast<const char*>(ev.data()), std::streamsize(ev.size() * sizeof(ListModeEvent)));
  });
}

void write_listmode_text(const std::filesystem::path& path, std::span<const ListModeEvent> ev) {
  write_file_atomic(path, [&](std::ostream& os) {
    os << "# tomoraster glpet list-mode events v1: module_a detector_a module_b detector_b "
          "(detector = i + N_a*j), "
       << ev.size() << " events\n";
    for (const ListModeEvent& e : ev)
      os << e.module_a << ' ' << e.detector_a << ' ' << e.module_b << ' ' << e.detector_b << '\n';
  });
}

}  // namespace tomo::glpet
