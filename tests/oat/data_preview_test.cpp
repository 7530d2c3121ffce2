// data.png of a large acquisition shows at most kMaxPreviewRows transducers: its size (and the
// seconds to encode it) does not grow with the transducer count.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <vector>

#include "compute/oat/images.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::oat::test {
namespace {
std::uint32_t png_height(const std::filesystem::path& p) {  // IHDR: height big-endian at byte 20
  std::ifstream f(p, std::ios::binary);
  unsigned char b[24] = {};
  f.read(reinterpret_cast<char*>(b), 24);
  return (std::uint32_t(b[20]) << 24) | (std::uint32_t(b[21]) << 16) | (std::uint32_t(b[22]) << 8) | b[23];
}
}  // namespace

TEST(OatDataPreview, ManyTransducersGiveABoundedPicture) {
  tomo::test::TempDir t;
  const int K = 8;
  auto height = [&](int Q) {
    std::vector<double> u(std::size_t(Q) * K);
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = double(i % 7);
    const auto p = t.dir / ("data" + std::to_string(Q) + ".png");
    write_data_preview(p, Q, K, 0.0, 0.1, u);
    return png_height(p);
  };
  const std::uint32_t at_limit = height(kMaxPreviewRows), many = height(16 * kMaxPreviewRows);
  EXPECT_GT(at_limit, 0u);
  EXPECT_EQ(many, at_limit);  // was 16× taller: one row per transducer
}

}  // namespace tomo::oat::test
