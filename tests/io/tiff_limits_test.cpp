// What a TIFF file may ask of the reader: a compressed tiled page whose tiles are larger than
// anything the file could decode to is refused before its tile buffer is allocated (a 212-byte file once
// asked for 1.27 GB), and uncompressed pages that declare more samples than the file stores are
// refused before the image is allocated (a 169-byte file once asked for 8452 x 2768 samples).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "compute/io/tiff.hpp"
#include "tests/support/input_errors.hpp"

namespace tomo {
namespace {

using test::message_of;

TEST(TiffLimits, TilesLargerThanTheFileCanHoldAreRefusedBeforeAllocation) {
  const std::filesystem::path f =
      std::filesystem::path(TOMO_SOURCE_DIR) / "tests/fuzz/regressions/tiff/compressed-tile-larger-than-the-file";
  const std::string m = message_of([&] { (void)io::read_tiff_stack(f); });
  EXPECT_NE(m.find("TIFF file '" + f.string() + "', page 0: tiles of "), std::string::npos) << m;
  EXPECT_NE(m.find(") are more than the file can hold"), std::string::npos) << m;
}

TEST(TiffLimits, UncompressedPagesLargerThanTheFileAreRefusedBeforeAllocation) {
  const std::filesystem::path f =
      std::filesystem::path(TOMO_SOURCE_DIR) / "tests/fuzz/regressions/tiff/uncompressed-larger-than-the-file";
  const std::string m = message_of([&] { (void)io::read_tiff_stack(f); });
  EXPECT_NE(m.find("TIFF file '" + f.string() + "', page 0: the uncompressed pages declare "), std::string::npos) << m;
  EXPECT_NE(m.find("of samples, more than the file's 169 bytes"), std::string::npos) << m;
}

}  // namespace
}  // namespace tomo
