// Fuzz entries and seeds of the μSR data formats other than PSI-BIN (MUD, ROOT, NeXus): the
// entries go through the same reader the fit uses (read_run_file); the seeds are small files
// laid out as the formats' documentation describes.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compute/musr/run_file.hpp"
#include "tests/fuzz/entries.hpp"

namespace tomo::fuzz {

inline bool musr_mud(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)musr::read_run_file(f.path(), "MUD"); });
}

namespace musr_seed {

using Bytes = std::vector<std::uint8_t>;

inline void u32(Bytes& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
inline void str(Bytes& b, const std::string& s) {
  b.push_back(static_cast<std::uint8_t>(s.size()));
  b.push_back(static_cast<std::uint8_t>(s.size() >> 8));
  b.insert(b.end(), s.begin(), s.end());
}
// One MUD section: the 12-byte core, then `body`.
inline Bytes section(std::uint32_t id, std::uint32_t instance, const Bytes& body) {
  Bytes b;
  u32(b, static_cast<std::uint32_t>(12 + body.size()));
  u32(b, id);
  u32(b, instance);
  b.insert(b.end(), body.begin(), body.end());
  return b;
}
// A group section (count, member bytes, index) followed by its members.
inline Bytes group(std::uint32_t instance, const std::vector<std::pair<std::uint32_t, Bytes>>& members) {
  Bytes body, after, index;
  u32(body, static_cast<std::uint32_t>(members.size()));
  std::uint32_t offset = 0;
  for (const auto& [id, m] : members) {
    u32(index, offset);
    u32(index, id);
    u32(index, 0);
    offset += static_cast<std::uint32_t>(m.size());
    after.insert(after.end(), m.begin(), m.end());
  }
  u32(body, offset);
  body.insert(body.end(), index.begin(), index.end());
  Bytes b = section(0x01010003, instance, body);
  b.insert(b.end(), after.begin(), after.end());
  return b;
}

// A two-histogram TRIUMF run of 64 bins: histogram 1 packed (zero run, 1-byte and 2-byte runs),
// histogram 2 with fixed 4-byte bins.
inline Bytes mud_run() {
  Bytes desc;
  for (std::uint32_t v : {1u, 7u, 0u, 0u, 0u}) u32(desc, v);
  for (const char* s : {"seed run", "TRIUMF", "M20", "TD-muSR", "LAMPF", "", "sample", "", "MIDAS", "", "10.0(0.1)K", "100(1)G"}) str(desc, s);
  auto header = [](std::uint32_t bytes_per_bin) {
    Bytes h;
    for (std::uint32_t v : {0x02010002u, 0u, 64u, bytes_per_bin, 781250u, 0u, 5u, 8u, 63u, 1u, 4u, 0u}) u32(h, v);
    str(h, "F");
    return h;
  };
  Bytes packed;
  u32(packed, 0);
  for (std::uint8_t v : {5, 0, 0, 50, 0, 1}) packed.push_back(v);  // 5 zeros, then 50 one-byte bins
  for (int i = 0; i < 50; ++i) packed.push_back(static_cast<std::uint8_t>(i + 1));
  for (std::uint8_t v : {9, 0, 2}) packed.push_back(v);  // 9 two-byte bins
  for (int i = 0; i < 9; ++i) {
    packed.push_back(0x10);
    packed.push_back(0x01);
  }
  const std::uint32_t n = static_cast<std::uint32_t>(packed.size() - 4);
  for (int i = 0; i < 4; ++i) packed[i] = static_cast<std::uint8_t>(n >> (8 * i));
  Bytes fixed;
  u32(fixed, 256);
  for (std::uint32_t i = 0; i < 64; ++i) u32(fixed, 1000 - i);
  const Bytes hists = group(0x02010002, {{0x01020002, section(0x01020002, 1, header(0))},
                                          {0x01020003, section(0x01020003, 1, packed)},
                                          {0x01020002, section(0x01020002, 2, header(4))},
                                          {0x01020003, section(0x01020003, 2, fixed)}});
  Bytes file = group(0x02010000, {{0x01020001, section(0x01020001, 1, desc)}, {0x01010003, hists}});
  const Bytes eof = section(0x01010004, 0, {});
  file.insert(file.end(), eof.begin(), eof.end());
  return file;
}

}  // namespace musr_seed

inline void add_musr_format_seeds(std::map<std::string, std::vector<std::vector<std::uint8_t>>>& out) {
  out["musr_mud"].push_back(musr_seed::mud_run());
}

}  // namespace tomo::fuzz
