// The common gate of every reader: folders, devices, FIFOs and oversized files are refused by
// name before anything is read.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::io {
namespace {

std::string refusal(const std::filesystem::path& p, std::uintmax_t cap = kMiB) {
  try {
    (void)input_file_bytes(p, cap, "test file");
  } catch (const InputError& e) {
    return e.what();
  }
  return "<accepted>";
}

TEST(InputFile, RefusesWhatIsNotARegularFileOfBoundedSize) {
  test::TempDir dir;
  EXPECT_EQ(refusal(dir.dir / "missing"), "test file '" + (dir.dir / "missing").string() + "': no such file");
  EXPECT_NE(refusal(dir.dir).find("is a folder, not a file"), std::string::npos);
  EXPECT_NE(refusal("/dev/zero").find("is not a regular file"), std::string::npos);
  const auto fifo = dir.dir / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(refusal(fifo).find("is not a regular file"), std::string::npos);  // returns, does not block
  const auto big = dir.dir / "big";
  std::ofstream(big) << "x";
  std::filesystem::resize_file(big, 3 * kMiB);  // sparse
  EXPECT_NE(refusal(big).find("3.0 MiB is larger than the 1.0 MiB a test file may have"), std::string::npos)
      << refusal(big);
  const auto ok = dir.dir / "ok";
  std::ofstream(ok, std::ios::binary) << std::string("a\0b", 3);
  EXPECT_EQ(input_file_bytes(ok, kMiB, "test file"), std::string("a\0b", 3));
  EXPECT_EQ(check_input_file(ok, 3, "test file"), 3u);
  EXPECT_NE(refusal(ok, 2).find("3 bytes is larger than the 2 bytes"), std::string::npos);
}

TEST(InputFile, ByteCountsReadAsAPersonWouldWriteThem) {
  EXPECT_EQ(byte_count(512), "512 bytes");
  EXPECT_EQ(byte_count(3 * kMiB / 2), "1.5 MiB");
  EXPECT_EQ(byte_count(3 * kGiB), "3.0 GiB");
}

}  // namespace
}  // namespace tomo::io
