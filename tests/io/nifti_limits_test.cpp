// What a NIfTI file may ask of the reader: a folder is refused by name; a header declaring
// more voxels than the cap is refused before anything is inflated; gzip data must inflate to
// exactly the declared size; and the 4-D series the writer makes reads back frame by frame.
#include <gtest/gtest.h>

#include "tests/support/input_errors.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/io/gzip.hpp"
#include "compute/io/nifti.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo {
namespace {

using test::message_of;

// A little-endian header of `dims` (x, y, z, t) voxels of `datatype` (`bytes` each), identity sform.
std::vector<unsigned char> header(std::array<std::int16_t, 4> dims, std::int16_t datatype, std::int16_t bitpix) {
  std::vector<unsigned char> b(352, 0);
  auto put = [&](std::size_t off, auto v) { std::memcpy(b.data() + off, &v, sizeof(v)); };
  put(0, std::int32_t{348});
  put(40, static_cast<std::int16_t>(dims[3] > 1 ? 4 : 3));
  for (int i = 0; i < 4; ++i) put(42 + 2 * i, dims[i]);
  for (int i = 4; i < 7; ++i) put(42 + 2 * i, std::int16_t{1});
  put(70, datatype);
  put(72, bitpix);
  for (int i = 0; i < 4; ++i) put(80 + 4 * i, 1.0f);
  put(108, 352.0f);
  put(254, std::int16_t{1});
  for (int r = 0; r < 3; ++r) put(280 + 16 * r + 4 * r, 1.0f);
  std::memcpy(b.data() + 344, "n+1\0", 4);
  return b;
}

void write_gz(const std::filesystem::path& p, const std::vector<unsigned char>& bytes) {
  std::ofstream out(p, std::ios::binary);
  GzipWriter z(out);
  z.write(bytes.data(), bytes.size());
  z.finish();
}

TEST(NiftiLimits, AFolderIsRefusedAsAFolder) {
  test::TempDir dir;
  std::filesystem::create_directory(dir.dir / "volume.nii");
  const std::string msg = message_of([&] { read_nifti(dir.dir / "volume.nii"); });
  EXPECT_NE(msg.find("NIfTI file '" + (dir.dir / "volume.nii").string() + "': is a folder, not a file"),
            std::string::npos)
      << msg;
}

TEST(NiftiLimits, MoreVoxelsThanTheCapAreRefusedFromTheHeader) {
  // 1024³ uint8 voxels (2^30, 4 GiB as float) in a gzip file of a few kB: refused from the
  // header, before the data are inflated.
  test::TempDir dir;
  std::vector<unsigned char> b = header({1024, 1024, 1024, 1}, 2, 8);
  b.resize(b.size() + (1 << 20), 0);
  write_gz(dir.dir / "huge.nii.gz", b);
  ASSERT_LT(std::filesystem::file_size(dir.dir / "huge.nii.gz"), 8192u);
  const std::string msg = message_of([&] { read_nifti(dir.dir / "huge.nii.gz"); });
  EXPECT_NE(msg.find("declares 1024x1024x1024 = 1073741824 voxels, more than the 536870912 an image may have"),
            std::string::npos)
      << msg;
  // The same over frames of a series: 512³ × 8 frames.
  write_gz(dir.dir / "frames.nii.gz", header({512, 512, 512, 8}, 2, 8));
  EXPECT_NE(message_of([&] { read_nifti_series(dir.dir / "frames.nii.gz"); }).find("512x512x512x8 = 1073741824"),
            std::string::npos);
}

TEST(NiftiLimits, GzipDataMustInflateToExactlyTheDeclaredSize) {
  test::TempDir dir;
  std::vector<unsigned char> b = header({4, 3, 2, 1}, 16, 32);
  b.resize(352 + 4 * 24, 0);
  write_gz(dir.dir / "exact.nii.gz", b);
  EXPECT_EQ(read_nifti(dir.dir / "exact.nii.gz").data, std::vector<float>(24, 0.0f));

  b.resize(b.size() + 4096, 0);  // 4 kB the header does not declare
  write_gz(dir.dir / "more.nii.gz", b);
  const std::string msg = message_of([&] { read_nifti(dir.dir / "more.nii.gz"); });
  EXPECT_NE(msg.find("the gzip data hold more than the 448 bytes its header declares (4x3x2 voxels of 4 bytes)"),
            std::string::npos)
      << msg;

  b.resize(352 + 4 * 23);
  write_gz(dir.dir / "less.nii.gz", b);
  EXPECT_NE(message_of([&] { read_nifti(dir.dir / "less.nii.gz"); }).find("end"), std::string::npos);
}

NiftiSeries series(int frames) {
  NiftiSeries s{.grid = Grid3::centred({3, 4, 2}, {0.7, 0.8, 0.9}), .data = {}, .frames = frames, .frame_s = 2.5};
  s.grid.origin_mm = {-1.0, 2.0, 3.5};
  s.data.resize(s.grid.count() * static_cast<std::size_t>(frames));
  for (std::size_t i = 0; i < s.data.size(); ++i) s.data[i] = 0.25f * static_cast<float>(i) - 3.0f;
  return s;
}

TEST(NiftiLimits, SeriesRoundTripsThroughTheReader) {
  test::TempDir dir;
  for (const char* file : {"series.nii", "series.nii.gz"}) {
    const NiftiSeries s = series(3);
    write_nifti(dir.dir / file, s, NiftiMeta("activity", "Bq/ml"));
    NiftiMeta meta;
    const NiftiSeries back = read_nifti_series(dir.dir / file, meta);
    EXPECT_EQ(back.frames, 3) << file;
    EXPECT_DOUBLE_EQ(back.frame_s, 2.5) << file;
    EXPECT_EQ(back.grid.dims, s.grid.dims) << file;
    for (int a = 0; a < 3; ++a) {
      EXPECT_NEAR(back.grid.voxel_mm[a], s.grid.voxel_mm[a], 1e-6) << file;
      EXPECT_NEAR(back.grid.origin_mm[a], s.grid.origin_mm[a], 1e-6) << file;
    }
    EXPECT_EQ(back.data, s.data) << file;
    EXPECT_EQ(meta.quantity, "activity");
    EXPECT_EQ(meta.unit, "Bq/ml");
    // The volume reader still takes one volume only, and says where a series is read.
    EXPECT_NE(message_of([&] { read_nifti(dir.dir / file); }).find("read_nifti_series"), std::string::npos);
  }
  // A 3-D file is a series of one frame.
  write_nifti(dir.dir / "one.nii", series(1));
  const NiftiSeries one = read_nifti_series(dir.dir / "one.nii");
  EXPECT_EQ(one.frames, 1);
  EXPECT_EQ(one.frame_s, 0.0);
  EXPECT_EQ(one.data, series(1).data);
}

}  // namespace
}  // namespace tomo
