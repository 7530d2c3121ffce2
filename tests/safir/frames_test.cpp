// Time frames (safir.frame_s) and their 4D NIfTI (x, y, z, frame).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>

#include "compute/io/nifti.hpp"
#include "compute/safir/mlem.hpp"
#include "compute/safir/output.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::safir {
namespace {

TEST(SafirFrames, SplitByTime) {
  const std::vector<double> t = {0.1, 0.2, 4.99, 5.0, 7.5, 12.0, 14.9};
  const auto f = split_frames(t, t.size(), 15.0, 5.0);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].first, 0u);
  EXPECT_EQ(f[0].count, 3u);  // [0, 5)
  EXPECT_EQ(f[1].first, 3u);
  EXPECT_EQ(f[1].count, 2u);  // [5, 10)
  EXPECT_EQ(f[2].count, 2u);
  EXPECT_DOUBLE_EQ(f[2].t1, 15.0);
  const auto one = split_frames(t, t.size(), 15.0, 0.0);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].count, t.size());
  // A frame with no events is kept (its image is the ML-EM start, a gap in the series).
  const auto gap = split_frames(std::vector<double>{0.5, 11.0}, 2, 15.0, 5.0);
  ASSERT_EQ(gap.size(), 3u);
  EXPECT_EQ(gap[1].count, 0u);
}

TEST(SafirFrames, FourDimensionalNifti) {
  tomo::test::TempDir dir;
  const Grid3 g = Grid3::centred({3, 2, 2}, {0.7, 0.7, 0.7});
  std::vector<std::vector<double>> frames(4, std::vector<double>(g.count()));
  for (std::size_t f = 0; f < 4; ++f)
    for (std::size_t i = 0; i < g.count(); ++i) frames[f][i] = 100.0 * f + i;
  const auto p = dir.dir / "frames.nii";
  write_frames_nifti(p, g, frames, 5.0);
  std::ifstream in(p, std::ios::binary);
  char h[352];
  in.read(h, sizeof h);
  std::int16_t dim[8];
  float pixdim4;
  std::memcpy(dim, h + 40, sizeof dim);
  std::memcpy(&pixdim4, h + 76 + 16, 4);
  EXPECT_EQ(dim[0], 4);
  EXPECT_EQ(dim[1], 3);
  EXPECT_EQ(dim[2], 2);
  EXPECT_EQ(dim[3], 2);
  EXPECT_EQ(dim[4], 4);
  EXPECT_FLOAT_EQ(pixdim4, 5.0f);
  std::vector<float> data(4 * g.count());
  in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size() * 4));
  EXPECT_FLOAT_EQ(data[2 * g.count() + 5], 205.0f);  // frame 2, voxel 5: t is the slowest axis
}

}  // namespace
}  // namespace tomo::safir
