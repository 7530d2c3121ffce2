// NIfTI beyond the basic round trip (tests/compute/nifti_test.cpp): quantity/unit and
// cal_min/cal_max, .nii.gz (checked against Debian's gzip), orientation from hand-built
// LPS, permuted and oblique headers, corrupt and oversized gzip data, non-finite voxels.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/io/nifti.hpp"
#include "tests/compute/io_support.hpp"

namespace fs = std::filesystem;
using namespace tomo;
using namespace tomo::io_test;

namespace {

// A little-endian float32 NIfTI-1 file with the given sform (sform_code 1) or, when
// `quatern` is set, only a qform; the header bytes written here, not by write_nifti.
struct Spec {
  std::array<std::int16_t, 3> dims{4, 3, 2};
  std::array<std::array<float, 4>, 3> srow{};
  bool qform_only = false;
  std::array<float, 3> quatern{0, 0, 0}, qoffset{0, 0, 0}, pixdim{1, 1, 1};
  float qfac = 1;
};

std::vector<unsigned char> build(const Spec& s, const std::vector<float>& values) {
  std::vector<unsigned char> b(352, 0);
  auto put = [&](std::size_t off, auto v) { std::memcpy(b.data() + off, &v, sizeof(v)); };
  put(0, std::int32_t{348});
  put(40, std::int16_t{3});
  for (int i = 0; i < 3; ++i) put(42 + 2 * i, s.dims[i]);
  for (int i = 3; i < 7; ++i) put(42 + 2 * i, std::int16_t{1});
  put(70, std::int16_t{16});
  put(72, std::int16_t{32});
  put(76, s.qfac);
  for (int i = 0; i < 3; ++i) put(80 + 4 * i, s.pixdim[i]);
  put(108, 352.0f);
  put(252, static_cast<std::int16_t>(s.qform_only ? 1 : 0));
  put(254, static_cast<std::int16_t>(s.qform_only ? 0 : 1));
  for (int i = 0; i < 3; ++i) put(256 + 4 * i, s.quatern[i]), put(268 + 4 * i, s.qoffset[i]);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) put(280 + 16 * r + 4 * c, s.srow[r][c]);
  std::memcpy(b.data() + 344, "n+1\0", 4);
  b.resize(352 + values.size() * 4);
  if (!values.empty()) std::memcpy(b.data() + 352, values.data(), values.size() * 4);
  return b;
}

// Values that name their file voxel: i + 10 j + 100 k.
std::vector<float> labelled(const std::array<std::int16_t, 3>& d) {
  std::vector<float> v;
  for (int k = 0; k < d[2]; ++k)
    for (int j = 0; j < d[1]; ++j)
      for (int i = 0; i < d[0]; ++i) v.push_back(static_cast<float>(i + 10 * j + 100 * k));
  return v;
}

// Every voxel of `r` holds the label of the file voxel whose centre is at the same world point.
void expect_same_world_points(const VolumeF& r, const Spec& s) {
  for (int c = 0; c < r.grid.dims[2]; ++c)
    for (int b = 0; b < r.grid.dims[1]; ++b)
      for (int a = 0; a < r.grid.dims[0]; ++a) {
        const double w[3] = {r.grid.origin_mm[0] + r.grid.voxel_mm[0] * a, r.grid.origin_mm[1] + r.grid.voxel_mm[1] * b,
                             r.grid.origin_mm[2] + r.grid.voxel_mm[2] * c};
        // Solve srow · (i, j, k, 1) = w for the file index by brute force over the small grid.
        int found = -1;
        for (int k = 0; k < s.dims[2]; ++k)
          for (int j = 0; j < s.dims[1]; ++j)
            for (int i = 0; i < s.dims[0]; ++i) {
              double d2 = 0;
              for (int q = 0; q < 3; ++q) {
                const double x = s.srow[q][0] * i + s.srow[q][1] * j + s.srow[q][2] * k + s.srow[q][3];
                d2 += (x - w[q]) * (x - w[q]);
              }
              if (d2 < 1e-6) found = i + 10 * j + 100 * k;
            }
        ASSERT_GE(found, 0) << "no file voxel at output voxel " << a << "," << b << "," << c;
        EXPECT_EQ(r.at(a, b, c), static_cast<float>(found)) << "output voxel " << a << "," << b << "," << c;
      }
}

VolumeF small_volume() {
  VolumeF v(Grid3{{5, 4, 3}, {0.5, 1.0, 2.0}, {-3.0, 1.5, 7.0}});
  for (std::size_t i = 0; i < v.data.size(); ++i) v.data[i] = static_cast<float>(i % 9) * 0.25f - 0.5f;
  return v;
}

}  // namespace

TEST(NiftiRead, QuantityUnitAndCalRangeRoundTrip) {
  TempDir t;
  const VolumeF v = small_volume();
  write_nifti(t.path / "a.nii", v, NiftiMeta{"activity", "Bq/mm^3"});
  const auto b = read_all(t.path / "a.nii");
  EXPECT_STREQ(reinterpret_cast<const char*>(b.data() + 148), "activity [Bq/mm^3]");
  EXPECT_EQ(at<float>(b, 124), 1.5f);   // cal_max = 8·0.25 − 0.5
  EXPECT_EQ(at<float>(b, 128), -0.5f);  // cal_min
  NiftiMeta m;
  const VolumeF r = read_nifti(t.path / "a.nii", m);
  EXPECT_EQ(r.grid, v.grid);
  EXPECT_EQ(r.data, v.data);
  EXPECT_EQ(m.quantity, "activity");
  EXPECT_EQ(m.unit, "Bq/mm^3");
  EXPECT_EQ(m.cal_min, -0.5f);
  EXPECT_EQ(m.cal_max, 1.5f);
  EXPECT_EQ(m.orientation, "RAS");
}

TEST(NiftiRead, GzipRoundTripIsRealGzip) {
  TempDir t;
  const VolumeF v = small_volume();
  write_nifti(t.path / "a.nii", v, NiftiMeta{"mu", "1/mm"});
  write_nifti(t.path / "a.nii.gz", v, NiftiMeta{"mu", "1/mm"});
  const auto gz = read_all(t.path / "a.nii.gz");
  ASSERT_GE(gz.size(), 2u);
  EXPECT_EQ(gz[0], 0x1f);
  EXPECT_EQ(gz[1], 0x8b);
  // Debian's gzip inflates it to exactly the uncompressed file.
  const std::string cmd = "gzip -dc '" + (t.path / "a.nii.gz").string() + "' | cmp -s - '" + (t.path / "a.nii").string() + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  NiftiMeta m;
  const VolumeF r = read_nifti(t.path / "a.nii.gz", m);
  EXPECT_EQ(r.grid, v.grid);
  EXPECT_EQ(r.data, v.data);
  EXPECT_EQ(m.unit, "1/mm");
  // A file gzipped by gzip itself, under a name without .gz: recognised by its bytes.
  ASSERT_EQ(std::system(("gzip -c '" + (t.path / "a.nii").string() + "' > '" + (t.path / "b.nii").string() + "'").c_str()), 0);
  EXPECT_EQ(read_nifti(t.path / "b.nii").data, v.data);
}

TEST(NiftiRead, LpsFileFromItkIsNotMirrored) {
  TempDir t;
  Spec s;  // x and y stored right-to-left and front-to-back: ITK's LPS voxel order
  s.srow = {{{-2, 0, 0, 10}, {0, -3, 0, 20}, {0, 0, 1.5f, -5}}};
  write_bytes(t.path / "lps.nii", build(s, labelled(s.dims)));
  NiftiMeta m;
  const VolumeF r = read_nifti(t.path / "lps.nii", m);
  EXPECT_EQ(m.orientation, "LPS");
  EXPECT_EQ(r.grid.dims, (std::array<int, 3>{4, 3, 2}));
  EXPECT_EQ(r.grid.voxel_mm, (std::array<double, 3>{2, 3, 1.5}));
  EXPECT_EQ(r.grid.origin_mm, (std::array<double, 3>{10 - 2 * 3, 20 - 3 * 2, -5}));
  EXPECT_EQ(r.at(0, 0, 0), 3 + 10 * 2);  // our first voxel is the file's last along x and y
  expect_same_world_points(r, s);
  // As an array (a projection stack, an atlas): the file's order, untouched.
  const VolumeF f = read_nifti(t.path / "lps.nii", m, NiftiAxes::File);
  EXPECT_EQ(f.grid.dims, (std::array<int, 3>{4, 3, 2}));
  EXPECT_EQ(f.data, labelled(s.dims));
}

TEST(NiftiRead, QformRotationOf180DegreesAboutZIsLps) {
  TempDir t;
  Spec s;
  s.qform_only = true;
  s.quatern = {0, 0, 1};  // a = 0, d = 1: R = diag(−1, −1, 1)
  s.pixdim = {2, 3, 1.5f};
  s.qoffset = {10, 20, -5};
  write_bytes(t.path / "q.nii", build(s, labelled(s.dims)));
  NiftiMeta m;
  const VolumeF r = read_nifti(t.path / "q.nii", m);
  EXPECT_EQ(m.orientation, "LPS");
  s.srow = {{{-2, 0, 0, 10}, {0, -3, 0, 20}, {0, 0, 1.5f, -5}}};  // the same map, for the check
  expect_same_world_points(r, s);
}

TEST(NiftiRead, PermutedAxesAndQfacAreResampledObliqueRefused) {
  TempDir t;
  Spec s;  // file axis 0 along world z, axis 1 along −x, axis 2 along y
  s.srow = {{{0, -1, 0, 4}, {0, 0, 2, -1}, {0.5f, 0, 0, 3}}};
  write_bytes(t.path / "perm.nii", build(s, labelled(s.dims)));
  NiftiMeta m;
  const VolumeF r = read_nifti(t.path / "perm.nii", m);
  EXPECT_EQ(m.orientation, "SLA");
  EXPECT_EQ(r.grid.dims, (std::array<int, 3>{3, 2, 4}));
  expect_same_world_points(r, s);

  Spec o;  // 30° about z
  const float c = std::cos(0.5235988f), sn = std::sin(0.5235988f);
  o.srow = {{{c, -sn, 0, 0}, {sn, c, 0, 0}, {0, 0, 1, 0}}};
  write_bytes(t.path / "oblique.nii", build(o, labelled(o.dims)));
  const std::string msg = message_of([&] { read_nifti(t.path / "oblique.nii"); });
  EXPECT_NE(msg.find("oblique"), std::string::npos) << msg;
  EXPECT_NE(msg.find("oblique.nii"), std::string::npos) << msg;
  EXPECT_THROW(read_nifti(t.path / "oblique.nii"), InputError);
}

TEST(NiftiRead, CorruptTruncatedAndOversizedGzipAreRefused) {
  TempDir t;
  VolumeF v(Grid3{{16, 16, 16}, {1, 1, 1}, {0, 0, 0}});
  for (std::size_t i = 0; i < v.data.size(); ++i) v.data[i] = static_cast<float>((i * 7919) % 1000);
  write_nifti(t.path / "ok.nii.gz", v);
  auto gz = read_all(t.path / "ok.nii.gz");
  auto corrupt = gz;
  for (std::size_t i = corrupt.size() / 2; i < corrupt.size() / 2 + 16; ++i) corrupt[i] ^= 0x5a;
  write_bytes(t.path / "corrupt.nii.gz", corrupt);
  std::string msg = message_of([&] { read_nifti(t.path / "corrupt.nii.gz"); });
  EXPECT_NE(msg.find("corrupt.nii.gz"), std::string::npos) << msg;
  EXPECT_THROW(read_nifti(t.path / "corrupt.nii.gz"), InputError);

  write_bytes(t.path / "short.nii.gz", std::vector<unsigned char>(gz.begin(), gz.begin() + gz.size() / 2));
  msg = message_of([&] { read_nifti(t.path / "short.nii.gz"); });
  EXPECT_NE(msg.find("short.nii.gz"), std::string::npos) << msg;
  EXPECT_THROW(read_nifti(t.path / "short.nii.gz"), InputError);

  // A 352-byte header asking for 512³ float voxels (512 MiB, under the voxel cap), gzipped:
  // more than its few bytes can inflate to, refused from the header before anything is allocated.
  Spec big;
  big.dims = {512, 512, 512};
  big.srow = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}};
  write_bytes(t.path / "big.nii", build(big, {}));
  ASSERT_EQ(std::system(("gzip -f '" + (t.path / "big.nii").string() + "'").c_str()), 0);
  msg = message_of([&] { read_nifti(t.path / "big.nii.gz"); });
  EXPECT_NE(msg.find("can hold at most"), std::string::npos) << msg;
  EXPECT_THROW(read_nifti(t.path / "big.nii.gz"), InputError);
}

TEST(NiftiRead, NonFiniteVoxelIsRefusedWithItsPosition) {
  TempDir t;
  VolumeF v = small_volume();
  v.at(1, 2, 0) = std::numeric_limits<float>::quiet_NaN();
  write_nifti(t.path / "nan.nii", v);
  const std::string msg = message_of([&] { read_nifti(t.path / "nan.nii"); });
  EXPECT_NE(msg.find("nan.nii"), std::string::npos) << msg;
  EXPECT_NE(msg.find("voxel (1, 2, 0)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("NaN"), std::string::npos) << msg;
  EXPECT_THROW(read_nifti(t.path / "nan.nii"), InputError);
  v.at(1, 2, 0) = 0;
  v.at(4, 3, 2) = std::numeric_limits<float>::infinity();
  write_nifti(t.path / "inf.nii.gz", v);
  EXPECT_NE(message_of([&] { read_nifti(t.path / "inf.nii.gz"); }).find("voxel (4, 3, 2)"), std::string::npos);
}
