// Binary and text list-mode files for strip events (format in event_io.hpp).
#include "compute/strip/event_io.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/core/log.hpp"
#include "compute/io/atomic_file.hpp"
#include "compute/io/text_lines.hpp"

namespace tomo::strip {

static_assert(std::endian::native == std::endian::little, "list-mode I/O assumes a little-endian host");

namespace {

// The largest list-mode file read (binary or text): 10^9 events and more.
constexpr std::uintmax_t kMaxEventBytes = 16 * io::kGiB;

constexpr std::size_t kMaxTextLine = 1024;  // three numbers need < 100 bytes; comments are short

// `where` names the position in the file: a byte offset (binary) or a line (text).
void check_finite(const std::filesystem::path& path, const Event& e, std::size_t i, const std::string& where) {
  const float v[3] = {e.z_u, e.z_d, e.dl};
  static const char* const kField[3] = {"z_u", "z_d", "dl"};
  for (int f = 0; f < 3; ++f)
    if (!std::isfinite(v[f]))
      throw InputError(str_cat(path.string(), ": event ", i, " (", where, ") has ", kField[f], " = ",
                               std::isnan(v[f]) ? "NaN" : "inf (beyond float range)", "; values must be finite"));
}

}  // namespace

void write_events_binary(const std::filesystem::path& path, const std::vector<Event>& events) {
  write_file_atomic(path, [&](std::ostream& os) {
    char header[kListModeHeaderBytes];
    const std::uint32_t version = kListModeVersion;
    const std::uint64_t count = events.size();
    std::memcpy(header, kListModeMagic, 4);
    std::memcpy(header + 4, &version, 4);
    std::memcpy(header + 8, &count, 8);
    os.write(header, sizeof header);
    os.write(reinterpret_cast<const char*>(events.data()), static_cast<std::streamsize>(events.size() * sizeof(Event)));
  });
}

std::vector<Event> read_events_binary(const std::filesystem::path& path) {
  const std::uintmax_t size = io::check_input_file(path, kMaxEventBytes, "list-mode file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(str_cat(path.string(), ": cannot open list-mode file"));
  char header[kListModeHeaderBytes];
  if (size < kListModeHeaderBytes || !in.read(header, sizeof header))
    throw InputError(str_cat(path.string(), ": too short for a list-mode header (", size, " bytes)"));
  if (std::memcmp(header, kListModeMagic, 4) != 0)
    throw InputError(str_cat(path.string(), ": not a strip list-mode file (bad magic)"));
  std::uint32_t version;
  std::uint64_t count;
  std::memcpy(&version, header + 4, 4);
  std::memcpy(&count, header + 8, 8);
  if (version != kListModeVersion)
    throw InputError(str_cat(path.string(), ": list-mode version ", version, " (this reader knows ", kListModeVersion, ")"));
  if (count > (size - kListModeHeaderBytes) / sizeof(Event))
    throw InputError(str_cat(path.string(), ": the header claims ", count, " events but the file's ", size,
                             " bytes hold at most ", (size - kListModeHeaderBytes) / sizeof(Event)));
  const std::uintmax_t expected = kListModeHeaderBytes + count * sizeof(Event);
  if (size != expected)
    throw InputError(str_cat(path.string(), ": size ", size, " bytes does not match the header's ", count,
                             " events (expected ", expected, " bytes)"));
  std::vector<Event> events(count);
  if (!in.read(reinterpret_cast<char*>(events.data()), static_cast<std::streamsize>(count * sizeof(Event))))
    throw InputError(str_cat(path.string(), ": read failed"));
  for (std::size_t i = 0; i < events.size(); ++i)
    check_finite(path, events[i], i, str_cat("byte offset ", kListModeHeaderBytes + i * sizeof(Event)));
  return events;
}

void write_events_text(const std::filesystem::path& path, const std::vector<Event>& events) {
  std::ostringstream os;
  os << "# tomoraster strip list-mode events v1: z_u z_d dl (mm), " << events.size() << " events\n";
  os << std::setprecision(9);  // float32 round-trips exactly with 9 significant digits
  for (const Event& e : events) os << e.z_u << ' ' << e.z_d << ' ' << e.dl << '\n';
  write_text_atomic(path, os.str());
}

std::vector<Event> read_events_text(const std::filesystem::path& path) {
  io::check_input_file(path, kMaxEventBytes, "list-mode text file");
  std::ifstream in(path);
  if (!in) throw InputError(str_cat(path.string(), ": cannot open list-mode text file"));
  std::vector<Event> events;
  std::string line;
  std::size_t line_no = 0;
  while (read_bounded_line(in, line, kMaxTextLine)) {
    ++line_no;
    if (line.size() > kMaxTextLine || line.find('\0') != std::string::npos)
      throw InputError(str_cat(path.string(), ":", line_no, ": ",
                               line.size() > kMaxTextLine ? "a line longer than 1024 bytes" : "binary data",
                               ": not a text list-mode file ('z_u z_d dl' per line) nor a binary one"));
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream ls(line);
    double v[3];
    std::string extra;
    if (!(ls >> v[0] >> v[1] >> v[2]) || (ls >> extra))
      throw InputError(str_cat(path.string(), ":", line_no, ": expected three numbers 'z_u z_d dl', got '",
                               line.size() > 60 ? line.substr(0, 60) + "..." : line, "'"));
    Event e{static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])};
    check_finite(path, e, events.size(), str_cat("line ", line_no));
    events.push_back(e);
  }
  return events;
}

std::vector<Event> read_events(const std::filesystem::path& path) {
  io::check_input_file(path, kMaxEventBytes, "list-mode file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(str_cat(path.string(), ": cannot open list-mode file"));
  char magic[4] = {};
  in.read(magic, 4);
  if (in.gcount() == 4 && std::memcmp(magic, kListModeMagic, 4) == 0) return read_events_binary(path);
  return read_events_text(path);
}

}  // namespace tomo::strip
