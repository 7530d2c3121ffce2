// PSI-BIN reader and writer (notes: musrfit-facts.md, "PSI-BIN data files").
#include "compute/musr/psi_bin.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "compute/core/error.hpp"
#include "compute/io/atomic_file.hpp"
#include "compute/io/input_file.hpp"

namespace tomo::musr {
namespace {

static_assert(std::endian::native == std::endian::little, "PSI-BIN I/O assumes a little-endian host");

constexpr std::size_t kHeader = 1024;

template <class T>
T get(std::span<const std::uint8_t> b, std::size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}
template <class T>
void put(std::vector<std::uint8_t>& b, std::size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}

std::string text_field(std::span<const std::uint8_t> b, std::size_t off, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n && b[off + i] != 0; ++i) {
    const char c = static_cast<char>(b[off + i]);
    s += (c >= 32 && c < 127) ? c : '?';
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

void put_text(std::vector<std::uint8_t>& b, std::size_t off, std::size_t n, const std::string& s) {
  for (std::size_t i = 0; i < n; ++i) b[off + i] = i < s.size() ? static_cast<std::uint8_t>(s[i]) : ' ';
}

}  // namespace

PsiBinFile parse_psi_bin(std::span<const std::uint8_t> b, const std::string& where) {
  auto fail = [&](const std::string& what) { throw InputError("PSI-BIN '" + where + "': " + what); };
  if (b.size() < kHeader) fail("file has " + std::to_string(b.size()) + " bytes, less than the 1024-byte header");
  if (b[0] != '1' || b[1] != 'N') fail("does not start with \"1N\" (not a PSI-BIN file)");
  PsiBinFile f;
  f.tdc_resolution = get<std::int16_t>(b, 2);
  const int bins = get<std::int16_t>(b, 28);
  const int nh = get<std::int16_t>(b, 30);
  const int lendaf = get<std::int16_t>(b, 130);
  const int kdafhi = get<std::int16_t>(b, 132);
  if (nh < 1 || nh > kPsiBinMaxHistograms) fail("number of histograms " + std::to_string(nh) + " is not in 1..16");
  if (bins < 1) fail("bins per histogram " + std::to_string(bins) + " is not positive");
  if (lendaf < 1 || kdafhi < 1) fail("record layout lendaf=" + std::to_string(lendaf) + " kdafhi=" + std::to_string(kdafhi) + " is not positive");
  const std::size_t stride = static_cast<std::size_t>(kdafhi) * static_cast<std::size_t>(lendaf);  // int32 words
  if (stride < static_cast<std::size_t>(bins))
    fail("records per histogram (" + std::to_string(kdafhi) + " × " + std::to_string(lendaf) + " words) hold fewer than " +
         std::to_string(bins) + " bins");
  const std::size_t need = kHeader + 4 * (static_cast<std::size_t>(nh - 1) * stride + static_cast<std::size_t>(bins));
  if (b.size() < need)
    fail("file has " + std::to_string(b.size()) + " bytes; " + std::to_string(nh) + " histograms of " + std::to_string(bins) +
         " bins need " + std::to_string(need));
  const float w = get<float>(b, 1012);
  if (!std::isfinite(w) || w < 0.0f) fail("bin width " + std::to_string(w) + " µs is not a non-negative number");
  if (w > 0.0f) {
    f.bin_width_us = static_cast<double>(w);
  } else {
    if (f.tdc_resolution < 0 || f.tdc_resolution > 30) fail("TDC resolution code " + std::to_string(f.tdc_resolution) + " is out of range");
    f.bin_width_us = 0.125 * 625e-6 * std::ldexp(1.0, f.tdc_resolution);
  }
  f.sample = text_field(b, 138, 10);
  f.temperature = text_field(b, 148, 10);
  f.field = text_field(b, 158, 10);
  f.orientation = text_field(b, 168, 10);
  f.setup = text_field(b, 178, 10);
  for (int h = 0; h < nh; ++h) {
    f.events.push_back(get<std::int32_t>(b, 296 + 4 * h));
    f.t0.push_back(get<std::int16_t>(b, 458 + 2 * h));
    f.first_good.push_back(get<std::int16_t>(b, 490 + 2 * h));
    f.last_good.push_back(get<std::int16_t>(b, 522 + 2 * h));
    f.labels.push_back(text_field(b, 948 + 4 * h, 4));
    std::vector<std::int32_t> hist(static_cast<std::size_t>(bins));
    std::memcpy(hist.data(), b.data() + kHeader + 4 * static_cast<std::size_t>(h) * stride, 4 * hist.size());
    // Counts are never negative: a negative one is a corrupt file, not data to fit.
    if (auto it = std::find_if(hist.begin(), hist.end(), [](std::int32_t v) { return v < 0; }); it != hist.end())
      fail("histogram " + std::to_string(h + 1) + " bin " + std::to_string(it - hist.begin()) + " has a negative count (" +
           std::to_string(*it) + ")");
    f.histograms.push_back(std::move(hist));
  }
  f.format = "PSI-BIN";
  return f;
}

// The gate first (a regular file under the hard cap), then the 1024-byte header, then only as
// many bytes as the header's histograms occupy: padding after them is never held in memory.
PsiBinFile read_psi_bin(const std::filesystem::path& path) {
  const std::uintmax_t size = io::check_input_file(path, kPsiBinMaxBytes, "PSI-BIN data");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("PSI-BIN data '" + path.string() + "': cannot be opened");
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(std::min<std::uintmax_t>(size, kHeader)));
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  std::size_t want = bytes.size();
  if (bytes.size() == kHeader) {
    const auto nh = get<std::int16_t>(bytes, 30), lendaf = get<std::int16_t>(bytes, 130), kdafhi = get<std::int16_t>(bytes, 132);
    if (nh > 0 && lendaf > 0 && kdafhi > 0)
      want = kHeader + 4 * static_cast<std::size_t>(nh) * static_cast<std::size_t>(lendaf) * static_cast<std::size_t>(kdafhi);
  }
  want = static_cast<std::size_t>(std::min<std::uintmax_t>(want, size));
  if (want > bytes.size()) {
    const std::size_t have = bytes.size();
    bytes.resize(want);
    in.read(reinterpret_cast<char*>(bytes.data() + have), static_cast<std::streamsize>(want - have));
    bytes.resize(have + static_cast<std::size_t>(in.gcount()));
  }
  return parse_psi_bin(bytes, path.string());
}

std::vector<std::uint8_t> encode_psi_bin(const PsiBinFile& f) {
  const int nh = static_cast<int>(f.histograms.size());
  const int bins = f.bins();
  if (nh < 1 || nh > kPsiBinMaxHistograms) throw InputError("PSI-BIN holds 1..16 histograms, not " + std::to_string(nh));
  if (bins < 1 || bins > kPsiBinMaxBins) throw InputError("PSI-BIN holds 1..32767 bins per histogram, not " + std::to_string(bins));
  for (const auto& h : f.histograms)
    if (static_cast<int>(h.size()) != bins) throw InputError("PSI-BIN histograms must all have the same length");
  auto per_hist = [&](const std::vector<int>& v, const char* what) {
    if (!v.empty() && static_cast<int>(v.size()) != nh) throw InputError(std::string("PSI-BIN ") + what + " needs one value per histogram");
  };
  per_hist(f.t0, "t0");
  per_hist(f.first_good, "first good bin");
  per_hist(f.last_good, "last good bin");
  const int lendaf = 256;  // 1 KiB records
  const int kdafhi = (bins + lendaf - 1) / lendaf;
  const std::size_t stride = static_cast<std::size_t>(kdafhi) * lendaf;
  std::vector<std::uint8_t> b(kHeader + 4 * stride * static_cast<std::size_t>(nh), 0);
  b[0] = '1';
  b[1] = 'N';
  put<std::int16_t>(b, 2, static_cast<std::int16_t>(f.tdc_resolution));
  put<std::int16_t>(b, 28, static_cast<std::int16_t>(bins));
  put<std::int16_t>(b, 30, static_cast<std::int16_t>(nh));
  put<std::int16_t>(b, 128, static_cast<std::int16_t>(kdafhi * nh));
  put<std::int16_t>(b, 130, static_cast<std::int16_t>(lendaf));
  put<std::int16_t>(b, 132, static_cast<std::int16_t>(kdafhi));
  put<std::int16_t>(b, 134, static_cast<std::int16_t>(nh));
  put_text(b, 138, 10, f.sample);
  put_text(b, 148, 10, f.temperature);
  put_text(b, 158, 10, f.field);
  put_text(b, 168, 10, f.orientation);
  put_text(b, 178, 10, f.setup);
  for (int h = 0; h < nh; ++h) {
    std::int64_t sum = 0;
    for (auto v : f.histograms[h]) sum += v;
    const auto events = h < static_cast<int>(f.events.size()) ? f.events[h] : static_cast<std::int32_t>(std::min<std::int64_t>(sum, INT32_MAX));
    put<std::int32_t>(b, 296 + 4 * h, events);
    put<std::int16_t>(b, 458 + 2 * h, static_cast<std::int16_t>(f.t0.empty() ? 0 : f.t0[h]));
    put<std::int16_t>(b, 490 + 2 * h, static_cast<std::int16_t>(f.first_good.empty() ? 0 : f.first_good[h]));
    put<std::int16_t>(b, 522 + 2 * h, static_cast<std::int16_t>(f.last_good.empty() ? bins - 1 : f.last_good[h]));
    char label[16];
    std::snprintf(label, sizeof label, "h%d", h + 1);  // (GCC 12 -Wrestrict misfires on "h" + to_string)
    put_text(b, 948 + 4 * h, 4, h < static_cast<int>(f.labels.size()) ? f.labels[h] : std::string(label));
    std::memcpy(b.data() + kHeader + 4 * static_cast<std::size_t>(h) * stride, f.histograms[h].data(), 4 * static_cast<std::size_t>(bins));
  }
  put<float>(b, 1012, static_cast<float>(f.bin_width_us));
  return b;
}

void write_psi_bin(const std::filesystem::path& path, const PsiBinFile& f) {
  auto b = encode_psi_bin(f);
  write_bytes_atomic(path, b.data(), b.size());
}

}  // namespace tomo::musr
