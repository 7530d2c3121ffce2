// PSI-MDU reader (layout in psi_mdu.hpp, as musrfit's PSI bin/mdu class reads it): the record
// sizes the header announces must be the format's, every tag and histogram must lie inside the
// file before anything is allocated, and the histograms must share one length.
#include "compute/musr/psi_mdu.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"

namespace tomo::musr {
namespace {

struct Tag {
  std::string label;
  char type = 0;
  std::int32_t min_bin = 0, max_bin = 0, t0 = 0, first_good = 0, last_good = 0;
};

class Parser {
 public:
  Parser(std::span<const std::uint8_t> b, const std::string& where) : b_(b), where_(where) {}

  [[noreturn]] void fail(const std::string& what) const { throw InputError("PSI-MDU '" + where_ + "': " + what); }

  std::int32_t i32(std::size_t at) const {
    std::int32_t v;
    std::memcpy(&v, b_.data() + at, 4);
    return v;
  }
  std::string text(std::size_t at, std::size_t n) const {
    std::string s(reinterpret_cast<const char*>(b_.data() + at), n);
    s.resize(std::min(s.find('\0'), s.size()));
    while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
    return s;
  }

  RunData run() {
    if (b_.size() < kMduHeaderBytes)
      fail("file has " + std::to_string(b_.size()) + " bytes, less than the " + std::to_string(kMduHeaderBytes) + "-byte header");
    const std::string id = text(0, 2);
    const int tags = id == "M3" || id == "T4" ? 16 : id == "T5" ? 32 : 0;
    if (tags == 0) fail("format id '" + text(0, 2) + "' is not M3, T4 or T5 (not a PSI-MDU file)");
    const std::size_t settings_bytes = 52 + kMduTagBytes * tags, statistics_bytes = 72 + 8 * static_cast<std::size_t>(tags);
    record_size(496, kMduHeaderBytes, "NumBytesHeader");
    record_size(500, settings_bytes, "NumBytesSettings");
    record_size(504, kMduTagBytes, "NumBytesTag");
    record_size(508, statistics_bytes, "NumBytesStatistics");
    const std::size_t settings = kMduHeaderBytes;
    std::size_t at = settings + settings_bytes + statistics_bytes;
    if (b_.size() < at) fail("file has " + std::to_string(b_.size()) + " bytes, less than header, settings and statistics (" + std::to_string(at) + ")");

    RunData f;
    f.format = "PSI-MDU";
    f.run_number = i32(44);
    f.sample = text(52, 10);
    f.temperature = text(62, 10);
    f.field = text(72, 10);
    f.orientation = text(82, 10);
    f.title = text(93, 62);
    f.setup = f.title;
    f.bin_width_us = bin_width(id, i32(settings + 36));
    const std::int64_t factor = resolution_factor(id, i32(176), i32(settings + 36));
    const auto selected = detector_list(text(192, 200));

    std::int64_t length = -1;
    for (int i = 0; i < tags; ++i) {
      if (b_.size() - at < kMduTagBytes) fail("tag record " + std::to_string(i) + " at byte " + std::to_string(at) + " is beyond the end of the file");
      const Tag t = tag(at);
      at += kMduTagBytes;
      const std::int64_t nbins = std::int64_t(t.max_bin) - t.min_bin + 1;
      if (t.type != 'P' || nbins <= 1) continue;
      if (t.min_bin < 0 || nbins > kMduMaxBins)
        fail("tag " + std::to_string(i) + " histogram bins " + std::to_string(t.min_bin) + ".." + std::to_string(t.max_bin) + " are not inside 0.." +
             std::to_string(kMduMaxBins - 1));
      if (static_cast<std::uint64_t>(nbins) * 4 > b_.size() - at)
        fail("tag " + std::to_string(i) + " histogram of " + std::to_string(nbins) + " bins at byte " + std::to_string(at) + " runs past the end of the file");
      const std::size_t data = at;
      at += static_cast<std::size_t>(nbins) * 4;
      // pTA (M3) files keep only the detectors of the header's list; TDC files keep every histogram.
      if (id == "M3" && !selected[static_cast<std::size_t>(i)]) continue;
      // musrfit: the histogram spans bins 0 .. min + n − 1 (zeros below min); M3 drops the last bin.
      const std::int64_t len = t.min_bin + nbins - (id == "M3" ? 1 : 0);
      if (len > kMduMaxBins) fail("tag " + std::to_string(i) + " histogram of " + std::to_string(len) + " bins exceeds " + std::to_string(kMduMaxBins));
      if (length < 0) length = len;
      else if (len != length)
        fail("tag " + std::to_string(i) + " histogram has " + std::to_string(len) + " bins, the first one " + std::to_string(length));
      std::vector<std::int32_t> h(static_cast<std::size_t>(len), 0);
      std::int64_t events = 0;
      const std::int64_t t0 = header_bin((std::int64_t(t.t0) + 1) * factor - 1, i, "t0");
      const std::int64_t fg = header_bin((std::int64_t(t.first_good) + 1) * factor - 1, i, "first good bin");
      const std::int64_t lg = header_bin(std::int64_t(t.last_good) * factor, i, "last good bin");
      for (std::int64_t j = t.min_bin; j < len; ++j) {
        const std::int32_t c = i32(data + 4 * static_cast<std::size_t>(j - t.min_bin));
        if (c < 0) fail("tag " + std::to_string(i) + " histogram bin " + std::to_string(j) + " has a negative count (" + std::to_string(c) + ")");
        h[static_cast<std::size_t>(j)] = c;
        if (j >= fg && j <= lg) events += c;
      }
      f.histograms.push_back(std::move(h));
      f.t0.push_back(static_cast<int>(t0));
      f.first_good.push_back(static_cast<int>(fg));
      f.last_good.push_back(static_cast<int>(lg));
      f.events.push_back(static_cast<std::int32_t>(std::min<std::int64_t>(events, INT32_MAX)));
      f.labels.push_back(t.label);
    }
    if (f.histograms.empty()) fail("holds no positron histogram" + std::string(id == "M3" ? " of the header's detector list" : ""));
    return f;
  }

 private:
  void record_size(std::size_t at, std::size_t want, const char* field) const {
    if (const std::int32_t v = i32(at); v < 0 || static_cast<std::size_t>(v) != want)
      fail(std::string(field) + " " + std::to_string(v) + " is not this format's " + std::to_string(want));
  }

  Tag tag(std::size_t at) const {
    Tag t;
    t.label = text(at, 12);
    t.type = static_cast<char>(b_[at + 12]);
    t.min_bin = i32(at + 40);
    t.max_bin = i32(at + 44);
    t.t0 = i32(at + 48);
    t.first_good = i32(at + 52);
    t.last_good = i32(at + 56);
    return t;
  }

  // Bin width in µs: the pTA timespan (M3) or the TDC resolution code (T4, T5).
  double bin_width(const std::string& id, std::int32_t code) const {
    if (id == "M3") {
      if (code < 6 || code > 11) fail("pTA timespan " + std::to_string(code) + " is not 6..11");
      return 0.000625 / static_cast<double>(1 << (11 - code));
    }
    switch (code) {
      case 25: return 0.0000244140625;
      case 100: return 0.00009765625;
      case 200: return 0.0001953125;
      case 800: return 0.00078125;
      default: fail("TDC resolution code " + std::to_string(code) + " is not 25, 100, 200 or 800");
    }
  }

  // The header's t0 and good bins count bins of the converted (target) format: one of them is
  // `factor` raw bins. M3: 2^(HistoResolution + 8 − timespan) (1 below 0); TDC: HistoResolution.
  std::int64_t resolution_factor(const std::string& id, std::int32_t resolution, std::int32_t timespan) const {
    if (id == "M3") {
      const std::int64_t e = std::int64_t(resolution) + 8 - timespan;
      if (e > 20) fail("HistoResolution " + std::to_string(resolution) + " gives a resolution factor beyond 2^20");
      return e < 0 ? 1 : std::int64_t(1) << e;
    }
    if (resolution < 0 || resolution > kMduMaxResolutionFactor)
      fail("HistoResolution " + std::to_string(resolution) + " is not 0.." + std::to_string(kMduMaxResolutionFactor));
    return resolution;
  }

  std::int64_t header_bin(std::int64_t v, int tag, const char* what) const {
    if (v < -1 || v > INT32_MAX)
      fail("tag " + std::to_string(tag) + " " + what + " " + std::to_string(v) + " is out of range");
    return v;
  }

  // DetectorNumberList: the tag numbers (0-based) a pTA run converts, separated by spaces.
  static std::vector<bool> detector_list(const std::string& s) {
    std::vector<bool> on(32, false);
    std::istringstream in(s);
    std::string tok;
    while (in >> tok) {
      char* end = nullptr;
      const long v = std::strtol(tok.c_str(), &end, 10);
      if (end != tok.c_str() && v >= 0 && v < 32) on[static_cast<std::size_t>(v)] = true;
    }
    return on;
  }

  std::span<const std::uint8_t> b_;
  std::string where_;
};

}  // namespace

RunData parse_psi_mdu(std::span<const std::uint8_t> bytes, const std::string& where) { return Parser(bytes, where).run(); }

RunData read_psi_mdu(const std::filesystem::path& path) {
  const std::string bytes = io::input_file_bytes(path, kMduMaxBytes, "PSI-MDU data");
  if (!bytes.empty() && bytes[0] == '1') return read_psi_bin(path);
  return parse_psi_mdu(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), path.string());
}

}  // namespace tomo::musr
