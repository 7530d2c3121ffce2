// The 4-D NIfTI writer (write_nifti of a NiftiSeries): byte for byte the file that a 3-D file
// of nz·T slices with its dim/pixdim/units fields set to 4-D in place is (the form safir wrote
// before), one frame the 3-D writer's file, and the data read back frame by frame.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/io/nifti.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo {
namespace {

std::vector<char> bytes_of(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

NiftiSeries series(int frames) {
  NiftiSeries s{.grid = Grid3::centred({3, 4, 2}, {0.7, 0.8, 0.9}), .frames = frames, .frame_s = 2.5};
  s.grid.origin_mm = {-1.0, 2.0, 3.5};
  s.data.resize(s.grid.count() * frames);
  for (std::size_t i = 0; i < s.data.size(); ++i) s.data[i] = 0.25f * static_cast<float>(i) - 3.0f;
  return s;
}

TEST(Nifti4d, BytesEqualThe3dFileWithItsHeaderSetTo4d) {
  tomo::test::TempDir dir;
  const NiftiSeries s = series(5);
  write_nifti(dir.dir / "series.nii", s, NiftiMeta("activity", "Bq/ml"));

  // The reference: the 3-D writer on nz·T slices, then dim, pixdim[4] and xyzt_units patched.
  Grid3 tall = s.grid;
  tall.dims[2] *= s.frames;
  VolumeF v(tall);
  v.data = s.data;
  const auto ref = dir.dir / "ref.nii";
  write_nifti(ref, v, NiftiMeta("activity", "Bq/ml"));
  {
    std::fstream io(ref, std::ios::in | std::ios::out | std::ios::binary);
    const std::int16_t dim[8] = {4, 3, 4, 2, 5, 1, 1, 1};
    io.seekp(40);
    io.write(reinterpret_cast<const char*>(dim), sizeof dim);
    const float dt = 2.5f;
    io.seekp(76 + 16);
    io.write(reinterpret_cast<const char*>(&dt), 4);
    const char units = 2 | 8;
    io.seekp(123);
    io.write(&units, 1);
  }
  const std::vector<char> got = bytes_of(dir.dir / "series.nii"), want = bytes_of(ref);
  ASSERT_EQ(got.size(), 352u + 4u * 3 * 4 * 2 * 5);
  EXPECT_EQ(got, want);
}

TEST(Nifti4d, RoundTripOfHeaderAndFrames) {
  tomo::test::TempDir dir;
  const NiftiSeries s = series(3);
  const auto p = dir.dir / "series.nii";
  write_nifti(p, s);
  const std::vector<char> b = bytes_of(p);
  ASSERT_EQ(b.size(), 352u + 4u * s.data.size());
  std::int16_t dim[8];
  float pixdim[8];
  std::memcpy(dim, b.data() + 40, sizeof dim);
  std::memcpy(pixdim, b.data() + 76, sizeof pixdim);
  EXPECT_EQ(dim[0], 4);
  EXPECT_EQ(dim[3], 2);
  EXPECT_EQ(dim[4], 3);
  EXPECT_FLOAT_EQ(pixdim[3], 0.9f);
  EXPECT_FLOAT_EQ(pixdim[4], 2.5f);
  EXPECT_EQ(b[123], 2 | 8);
  std::vector<float> data(s.data.size());
  std::memcpy(data.data(), b.data() + 352, 4 * data.size());
  EXPECT_EQ(data, s.data);
  EXPECT_FLOAT_EQ(data[2 * s.grid.count() + 7], 0.25f * (2 * 24 + 7) - 3.0f);  // frame 2, voxel 7
}

TEST(Nifti4d, OneFrameIsThe3dFile) {
  tomo::test::TempDir dir;
  const NiftiSeries s = series(1);
  write_nifti(dir.dir / "one.nii", s);
  VolumeF v(s.grid);
  v.data = s.data;
  write_nifti(dir.dir / "three.nii", v);
  EXPECT_EQ(bytes_of(dir.dir / "one.nii"), bytes_of(dir.dir / "three.nii"));
  const VolumeF back = read_nifti(dir.dir / "one.nii");
  EXPECT_EQ(back.data, s.data);
}

TEST(Nifti4d, SizesThatDoNotMatchAreRefused) {
  tomo::test::TempDir dir;
  NiftiSeries s = series(2);
  s.data.pop_back();
  EXPECT_THROW(write_nifti(dir.dir / "bad.nii", s), Error);
  s = series(2);
  s.frames = 0;
  EXPECT_THROW(write_nifti(dir.dir / "bad.nii", s), Error);
}

}  // namespace
}  // namespace tomo
