// List-mode readers bound what they read and say what is wrong.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <limits>

#include <unistd.h>

#include "compute/core/error.hpp"
#include "compute/strip/event_io.hpp"

namespace fs = std::filesystem;

namespace tomo::strip {
namespace {

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() / ("tomo-evlim-" + std::to_string(::getpid()) + "-" + name);
}

std::string error_of(const fs::path& p) {
  try {
    read_events(p);
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

TEST(EventIoLimits, NoNewlineForMegabytesIsRefusedWithoutReadingItAll) {
  const fs::path p = temp_file("long");
  std::ofstream(p) << std::string(8 << 20, '7');
  const std::string e = error_of(p);
  fs::remove(p);
  EXPECT_NE(e.find("longer than 1024 bytes"), std::string::npos) << e.substr(0, 200);
  EXPECT_LT(e.size(), 400u) << "the message echoes the file";
}

TEST(EventIoLimits, BinaryGarbageIsNamedAsSuch) {
  const fs::path p = temp_file("bin");
  std::string junk(300, '\0');
  junk[10] = '\n';
  std::ofstream(p, std::ios::binary).write(junk.data(), static_cast<std::streamsize>(junk.size()));
  const std::string e = error_of(p);
  fs::remove(p);
  EXPECT_NE(e.find("binary data"), std::string::npos) << e;
}

TEST(EventIoLimits, AHeaderClaimingMoreEventsThanTheFileHoldsSaysSo) {
  const fs::path p = temp_file("claim");
  char header[kListModeHeaderBytes] = {};
  std::memcpy(header, kListModeMagic, 4);
  const std::uint32_t version = kListModeVersion;
  const std::uint64_t count = 4611686018427387904ull;
  std::memcpy(header + 4, &version, 4);
  std::memcpy(header + 8, &count, 8);
  std::ofstream(p, std::ios::binary).write(header, sizeof header);
  const std::string e = error_of(p);
  fs::remove(p);
  EXPECT_NE(e.find("claims 4611686018427387904 events"), std::string::npos) << e;
  EXPECT_NE(e.find("hold at most 0"), std::string::npos) << e;
}

// A non-finite value names the event, the field and where it is.
TEST(EventIoPosition, BinaryNaNNamesEventFieldAndByteOffset) {
  const fs::path p = temp_file("nan.lm");
  // Header bytes spelled out (magic, version 1, count 3), then three events of 3 floats.
  std::string b("TSLM", 4);
  const std::uint32_t version = 1;
  const std::uint64_t count = 3;
  b.append(reinterpret_cast<const char*>(&version), 4).append(reinterpret_cast<const char*>(&count), 8);
  const float ev[9] = {1, 2, 3, 4, 5, 6, 7, std::numeric_limits<float>::quiet_NaN(), 9};
  b.append(reinterpret_cast<const char*>(ev), sizeof ev);
  std::ofstream(p, std::ios::binary) << b;
  const std::string e = error_of(p);
  fs::remove(p);
  EXPECT_NE(e.find("nan.lm"), std::string::npos) << e;
  EXPECT_NE(e.find("event 2"), std::string::npos) << e;
  EXPECT_NE(e.find("byte offset 40"), std::string::npos) << e;  // 16 + 2 · 12
  EXPECT_NE(e.find("z_d = NaN"), std::string::npos) << e;
}

TEST(EventIoPosition, TextValueBeyondFloatNamesTheLine) {
  const fs::path p = temp_file("big.txt");
  std::ofstream(p) << "# z_u z_d dl\n1 2 3\n\n4 5 1e39\n";
  const std::string e = error_of(p);
  fs::remove(p);
  EXPECT_NE(e.find("event 1 (line 4)"), std::string::npos) << e;
  EXPECT_NE(e.find("dl = inf"), std::string::npos) << e;
}

}  // namespace
}  // namespace tomo::strip
