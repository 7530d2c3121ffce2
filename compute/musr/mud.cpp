// MUD reader. Layout (TRIUMF's MUD library documents it): every section starts with a 12-byte
// core {size, section id, instance id} (little-endian uint32; size counts the core). A group
// section holds {count, member bytes} and an index of its members, which follow it directly.
// Strings are {uint16 length, bytes}. Histogram data are either fixed-width bins (1, 2 or 4
// bytes) or, when the header's bytes-per-bin is 0, runs of {uint16 count, uint8 width, count ·
// width bytes} where width 0 stands for count zero bins.
#include "compute/musr/mud.hpp"

#include <cmath>
#include <cstring>
#include <map>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"

namespace tomo::musr {
namespace {

constexpr std::uint32_t kGroup = 0x01010003, kEof = 0x01010004;
constexpr std::uint32_t kGenRunDesc = 0x01020001, kHistHeader = 0x01020002, kHistData = 0x01020003;
constexpr std::uint32_t kTriTiRunDesc = 0x02020001;
constexpr int kMaxDepth = 8;  // groups nest two deep in real files

struct HistHeader {
  std::uint32_t bins = 0, bytes_per_bin = 0, fs_per_bin = 0, t0_bin = 0, good1 = 0, good2 = 0, events = 0;
  std::string title;
};

class Parser {
 public:
  Parser(std::span<const std::uint8_t> b, const std::string& where) : b_(b), where_(where) {}

  [[noreturn]] void fail(const std::string& what) const { throw InputError("MUD '" + where_ + "': " + what); }

  RunData run() {
    walk(0, b_.size(), 0);
    if (headers_.empty()) fail("no histogram header section (not a time-differential MUD run)");
    RunData f;
    f.format = "MUD";
    f.run_number = run_number_;
    f.title = title_;
    f.lab = lab_;
    f.area = area_;
    f.sample = sample_;
    f.temperature = temperature_;
    f.field = field_;
    f.orientation = orient_;
    f.setup = lab_ + "/" + area_ + "/" + apparatus_;
    const std::uint32_t n = static_cast<std::uint32_t>(headers_.size());
    for (std::uint32_t h = 1; h <= n; ++h) {
      auto hi = headers_.find(h);
      if (hi == headers_.end()) fail("histogram header " + std::to_string(h) + " is missing (" + std::to_string(n) + " headers)");
      auto di = data_.find(h);
      if (di == data_.end()) fail("histogram " + std::to_string(h) + " has a header but no data section");
      const HistHeader& hd = hi->second;
      const double w = mud_bin_width_us(hd.fs_per_bin);
      if (h == 1) f.bin_width_us = w;
      else if (w != f.bin_width_us)
        fail("histogram " + std::to_string(h) + " bin width " + std::to_string(w) + " µs differs from histogram 1's " +
             std::to_string(f.bin_width_us) + " µs");
      auto counts = unpack(hd, di->second, h);
      if (h > 1 && counts.size() != f.histograms[0].size())
        fail("histogram " + std::to_string(h) + " has " + std::to_string(counts.size()) + " bins, histogram 1 has " +
             std::to_string(f.histograms[0].size()));
      auto bin_field = [&](std::uint32_t v, const char* what) {
        if (v > hd.bins) fail("histogram " + std::to_string(h) + " " + what + " " + std::to_string(v) + " is beyond its " + std::to_string(hd.bins) + " bins");
        return static_cast<int>(v);
      };
      f.t0.push_back(bin_field(hd.t0_bin, "t0 bin"));
      f.first_good.push_back(bin_field(hd.good1, "first good bin"));
      f.last_good.push_back(bin_field(hd.good2, "last good bin"));
      f.events.push_back(static_cast<std::int32_t>(std::min<std::uint32_t>(hd.events, INT32_MAX)));
      f.labels.push_back(hd.title);
      f.histograms.push_back(std::move(counts));
    }
    return f;
  }

 private:
  std::uint32_t u32(std::size_t at, std::size_t end, const char* field) const {
    if (at + 4 > end) fail("section ends inside its " + std::string(field));
    std::uint32_t v;
    std::memcpy(&v, b_.data() + at, 4);
    return v;
  }
  std::string str(std::size_t& at, std::size_t end, const char* field) const {
    if (at + 2 > end) fail("section ends inside the length of its " + std::string(field));
    const std::size_t n = b_[at] | (std::size_t(b_[at + 1]) << 8);
    at += 2;
    if (at + n > end) fail(std::string(field) + " of " + std::to_string(n) + " bytes runs past its section");
    std::string s;
    for (std::size_t i = 0; i < n && b_[at + i] != 0; ++i) {
      const char c = static_cast<char>(b_[at + i]);
      s += (c >= 32 && c < 127) ? c : '?';
    }
    at += n;
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  }

  // Sections in [pos, end); groups recurse into the member bytes that follow them.
  void walk(std::size_t pos, std::size_t end, int depth) {
    if (depth > kMaxDepth) fail("groups nest deeper than " + std::to_string(kMaxDepth));
    while (pos < end) {
      if (end - pos < 12) fail("section at byte " + std::to_string(pos) + " is cut short (" + std::to_string(end - pos) + " bytes left)");
      const std::uint32_t size = u32(pos, end, "size"), id = u32(pos + 4, end, "id"), inst = u32(pos + 8, end, "instance");
      if (size < 12 || size > end - pos)
        fail("section at byte " + std::to_string(pos) + " has size " + std::to_string(size) + " (" + std::to_string(end - pos) + " bytes left)");
      const std::size_t body = pos + 12, stop = pos + size;
      if (id == kEof) return;
      if (id == kGroup) {
        const std::uint32_t members = u32(body + 4, stop, "member size");
        if (members > end - stop)
          fail("group at byte " + std::to_string(pos) + " has " + std::to_string(members) + " member bytes (" + std::to_string(end - stop) + " left)");
        walk(stop, stop + members, depth + 1);
        pos = stop + members;
        continue;
      }
      if (id == kGenRunDesc || id == kTriTiRunDesc) run_desc(body, stop, id == kGenRunDesc);
      else if (id == kHistHeader) hist_header(body, stop, inst);
      else if (id == kHistData) {
        const std::uint32_t n = u32(body, stop, "data size");
        if (n > stop - body - 4) fail("histogram data " + std::to_string(inst) + " claims " + std::to_string(n) + " bytes, its section holds " + std::to_string(stop - body - 4));
        if (!data_.emplace(inst, b_.subspan(body + 4, n)).second) fail("histogram data " + std::to_string(inst) + " appears twice");
      }
      pos = stop;
    }
  }

  void run_desc(std::size_t at, std::size_t end, bool gen) {
    run_number_ = static_cast<int>(std::min<std::uint32_t>(u32(at + 4, end, "run number"), INT32_MAX));
    at += 20;  // experiment, run, begin, end, elapsed
    title_ = str(at, end, "title");
    lab_ = str(at, end, "lab");
    area_ = str(at, end, "area");
    (void)str(at, end, "method");
    apparatus_ = str(at, end, "apparatus");
    (void)str(at, end, "insert");
    sample_ = str(at, end, "sample");
    orient_ = str(at, end, "orientation");
    (void)str(at, end, "DAS");
    (void)str(at, end, "experimenter");
    if (gen) {
      temperature_ = str(at, end, "temperature");
      field_ = str(at, end, "field");
    }
  }

  void hist_header(std::size_t at, std::size_t end, std::uint32_t inst) {
    if (inst < 1 || inst > kMudMaxHistograms) fail("histogram header instance " + std::to_string(inst) + " is not in 1.." + std::to_string(kMudMaxHistograms));
    HistHeader h;
    h.bins = u32(at + 8, end, "number of bins");
    h.bytes_per_bin = u32(at + 12, end, "bytes per bin");
    h.fs_per_bin = u32(at + 16, end, "bin width");
    h.t0_bin = u32(at + 24, end, "t0 bin");
    h.good1 = u32(at + 28, end, "first good bin");
    h.good2 = u32(at + 32, end, "last good bin");
    h.events = u32(at + 44, end, "events");
    std::size_t s = at + 48;
    h.title = str(s, end, "histogram title");
    if (h.bins < 1 || h.bins > kMudMaxBins) fail("histogram " + std::to_string(inst) + " has " + std::to_string(h.bins) + " bins (1.." + std::to_string(kMudMaxBins) + ")");
    if (h.bytes_per_bin != 0 && h.bytes_per_bin != 1 && h.bytes_per_bin != 2 && h.bytes_per_bin != 4)
      fail("histogram " + std::to_string(inst) + " bytes per bin " + std::to_string(h.bytes_per_bin) + " is not 0, 1, 2 or 4");
    if (!headers_.emplace(inst, h).second) fail("histogram header " + std::to_string(inst) + " appears twice");
  }

  std::vector<std::int32_t> unpack(const HistHeader& h, std::span<const std::uint8_t> d, std::uint32_t k) const {
    auto value = [&](std::size_t at, std::uint32_t width) {
      std::uint32_t v = 0;
      for (std::uint32_t i = 0; i < width; ++i) v |= std::uint32_t(d[at + i]) << (8 * i);
      if (v > INT32_MAX) fail("histogram " + std::to_string(k) + " has a count " + std::to_string(v) + " above 2^31");
      return static_cast<std::int32_t>(v);
    };
    if (h.bytes_per_bin != 0) {
      if (std::size_t(h.bins) * h.bytes_per_bin > d.size())
        fail("histogram " + std::to_string(k) + ": " + std::to_string(h.bins) + " bins of " + std::to_string(h.bytes_per_bin) + " bytes need " +
             std::to_string(std::size_t(h.bins) * h.bytes_per_bin) + " bytes, its data section holds " + std::to_string(d.size()));
      std::vector<std::int32_t> out(h.bins);
      for (std::size_t i = 0; i < h.bins; ++i) out[i] = value(i * h.bytes_per_bin, h.bytes_per_bin);
      return out;
    }
    // Packed runs: each 3-byte run header stands for at most 65535 bins, which bounds the
    // allocation by the data's size before it is made.
    if (std::size_t(h.bins) > (d.size() / 3) * std::size_t(65535))
      fail("histogram " + std::to_string(k) + ": " + std::to_string(h.bins) + " packed bins cannot come from " + std::to_string(d.size()) + " bytes");
    std::vector<std::int32_t> out;
    out.reserve(h.bins);
    std::size_t at = 0;
    while (out.size() < h.bins) {
      if (at + 3 > d.size()) fail("histogram " + std::to_string(k) + " packed data end after " + std::to_string(out.size()) + " of " + std::to_string(h.bins) + " bins");
      const std::uint32_t count = d[at] | (std::uint32_t(d[at + 1]) << 8), width = d[at + 2];
      at += 3;
      if (width != 0 && width != 1 && width != 2 && width != 4) fail("histogram " + std::to_string(k) + " packed run width " + std::to_string(width) + " is not 0, 1, 2 or 4");
      if (count > h.bins - out.size()) fail("histogram " + std::to_string(k) + " packed run of " + std::to_string(count) + " bins overruns its " + std::to_string(h.bins) + " bins");
      if (std::size_t(count) * width > d.size() - at) fail("histogram " + std::to_string(k) + " packed run runs past its data");
      for (std::uint32_t i = 0; i < count; ++i) out.push_back(width ? value(at + i * width, width) : 0);
      at += std::size_t(count) * width;
    }
    return out;
  }

  std::span<const std::uint8_t> b_;
  std::string where_;
  int run_number_ = -1;
  std::string title_, lab_, area_, apparatus_, sample_, orient_, temperature_, field_;
  std::map<std::uint32_t, HistHeader> headers_;
  std::map<std::uint32_t, std::span<const std::uint8_t>> data_;
};

}  // namespace

double mud_bin_width_us(std::uint32_t fs) {
  if (fs < 16) return 0.078125e-3 * std::ldexp(1.0, static_cast<int>(fs));
  if (fs < 29) return 0.048828125e-3 * std::ldexp(1.0, static_cast<int>(fs) - 16);
  return fs * 1e-9;
}

RunData parse_mud(std::span<const std::uint8_t> bytes, const std::string& where) { return Parser(bytes, where).run(); }

RunData read_mud(const std::filesystem::path& path) {
  const std::string bytes = io::input_file_bytes(path, kMudMaxBytes, "MUD data");
  return parse_mud(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), path.string());
}

}  // namespace tomo::musr
