// Tests of the NIfTI-1 reader and writer: round trip and header bytes, byte-swapped and
// other-datatype files (built by hand, independently of write_nifti), rejection of bad files.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
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

// A hand-built NIfTI-1 file independent of write_nifti: any datatype, either byte order.
struct NiftiSpec {
  bool big_endian = false;
  std::int16_t datatype = 16;
  std::int16_t ndim = 3;
  std::array<std::int16_t, 7> dims{1, 1, 1, 1, 1, 1, 1};
  std::array<float, 3> pixdim{1, 1, 1};
  float slope = 0, inter = 0;
  std::int16_t qform_code = 0, sform_code = 0;
  std::array<float, 3> qoffset{0, 0, 0};
  std::array<float, 3> sform_offset{0, 0, 0};
  const char* magic = "n+1";
  std::vector<double> values;
};

std::vector<unsigned char> build_nifti(const NiftiSpec& s) {
  std::vector<unsigned char> b(352, 0);
  const bool swap = s.big_endian;  // this machine is little-endian (checked in the test)
  auto put = [&](std::size_t off, auto v) {
    unsigned char t[sizeof(v)];
    std::memcpy(t, &v, sizeof(v));
    if (swap) std::reverse(t, t + sizeof(v));
    std::memcpy(b.data() + off, t, sizeof(v));
  };
  put(0, std::int32_t{348});
  put(40, s.ndim);
  for (int i = 0; i < 7; ++i) put(42 + 2 * i, s.dims[i]);
  put(70, s.datatype);
  for (int i = 0; i < 3; ++i) put(80 + 4 * i, s.pixdim[i]);
  put(76, 1.0f);
  put(108, 352.0f);
  put(112, s.slope);
  put(116, s.inter);
  put(252, s.qform_code);
  put(254, s.sform_code);
  for (int i = 0; i < 3; ++i) put(268 + 4 * i, s.qoffset[i]);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) put(280 + 16 * r + 4 * c, r == c ? s.pixdim[r] : 0.0f);
    put(280 + 16 * r + 12, s.sform_offset[r]);
  }
  std::memcpy(b.data() + 344, s.magic, 4);
  for (double v : s.values) {
    std::size_t n = 0;
    unsigned char t[8];
    switch (s.datatype) {
      case 2: { auto x = static_cast<std::uint8_t>(v); n = 1; std::memcpy(t, &x, n); break; }
      case 4: { auto x = static_cast<std::int16_t>(v); n = 2; std::memcpy(t, &x, n); break; }
      case 8: { auto x = static_cast<std::int32_t>(v); n = 4; std::memcpy(t, &x, n); break; }
      case 16: { auto x = static_cast<float>(v); n = 4; std::memcpy(t, &x, n); break; }
      case 64: { double x = v; n = 8; std::memcpy(t, &x, n); break; }
      case 512: { auto x = static_cast<std::uint16_t>(v); n = 2; std::memcpy(t, &x, n); break; }
    }
    if (swap) std::reverse(t, t + n);
    b.insert(b.end(), t, t + n);
  }
  return b;
}

VolumeF test_volume() {
  Grid3 g{{5, 7, 3}, {0.5, 1.25, 2.0}, {-10.5, 3.25, 7.0}};
  VolumeF v(g);
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 7; ++j)
      for (int i = 0; i < 5; ++i) v.at(i, j, k) = static_cast<float>(i + 10 * j + 100 * k) + 0.25f;
  return v;
}

}  // namespace

TEST(Nifti, RoundTripNonCubicWithHeaderBytes) {
  TempDir t;
  const VolumeF v = test_volume();
  const fs::path p = t.path / "vol.nii";
  write_nifti(p, v);

  const auto b = read_all(p);
  ASSERT_EQ(b.size(), 352u + v.size() * 4);
  EXPECT_EQ(at<std::int32_t>(b, 0), 348);                           // sizeof_hdr
  const std::int16_t dims[8] = {3, 5, 7, 3, 1, 1, 1, 1};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(at<std::int16_t>(b, 40 + 2 * i), dims[i]) << "dim[" << i << "]";
  EXPECT_EQ(at<std::int16_t>(b, 70), 16);                           // datatype float32
  EXPECT_EQ(at<std::int16_t>(b, 72), 32);                           // bitpix
  const float pixdim[4] = {1.0f, 0.5f, 1.25f, 2.0f};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(at<float>(b, 76 + 4 * i), pixdim[i]) << "pixdim[" << i << "]";
  EXPECT_EQ(at<float>(b, 108), 352.0f);                             // vox_offset
  EXPECT_EQ(b[123], 2);                                             // xyzt_units = mm
  EXPECT_EQ(at<std::int16_t>(b, 252), 1);                           // qform_code
  EXPECT_EQ(at<std::int16_t>(b, 254), 1);                           // sform_code
  EXPECT_EQ(at<float>(b, 268), -10.5f);                             // qoffset_x
  EXPECT_EQ(at<float>(b, 276), 7.0f);                               // qoffset_z
  const float srow_y[4] = {0, 1.25f, 0, 3.25f};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(at<float>(b, 296 + 4 * i), srow_y[i]) << "srow_y[" << i << "]";
  EXPECT_EQ(std::memcmp(b.data() + 344, "n+1\0", 4), 0);            // magic
  EXPECT_EQ(std::memcmp(b.data() + 148, "tomoraster", 10), 0);      // descrip
  for (int i = 348; i < 352; ++i) EXPECT_EQ(b[i], 0) << "extension byte " << i;
  EXPECT_EQ(at<float>(b, 352 + 4 * (1 + 5 * (2 + 7 * 1))), v.at(1, 2, 1));  // x fastest

  const VolumeF r = read_nifti(p);
  EXPECT_EQ(r.grid, v.grid);
  EXPECT_EQ(r.data, v.data);
  EXPECT_EQ(listing(t.path), std::vector<std::string>{"vol.nii"});  // no temp file left
}

TEST(Nifti, ReadsByteSwappedInt16WithScaling) {
  const std::uint16_t probe = 1;
  ASSERT_EQ(*reinterpret_cast<const unsigned char*>(&probe), 1) << "the test builds big-endian files by swapping";
  TempDir t;
  NiftiSpec s;
  s.big_endian = true;
  s.datatype = 4;
  s.dims = {4, 3, 2, 1, 1, 1, 1};
  s.pixdim = {0.8f, 0.9f, 3.0f};
  s.slope = 0.5f;
  s.inter = -2.0f;
  s.sform_code = 2;
  s.qform_code = 1;
  s.qoffset = {100, 100, 100};      // ignored: sform wins
  s.sform_offset = {-1.5f, 2.5f, 4.0f};
  for (int n = 0; n < 24; ++n) s.values.push_back(n * 300 - 3000);
  write_bytes(t.path / "be.nii", build_nifti(s));

  const VolumeF r = read_nifti(t.path / "be.nii");
  EXPECT_EQ(r.grid.dims, (std::array<int, 3>{4, 3, 2}));
  EXPECT_NEAR(r.grid.voxel_mm[0], 0.8, 1e-6);
  EXPECT_NEAR(r.grid.voxel_mm[2], 3.0, 1e-6);
  EXPECT_EQ(r.grid.origin_mm, (std::array<double, 3>{-1.5, 2.5, 4.0}));
  for (int n = 0; n < 24; ++n) EXPECT_FLOAT_EQ(r.data[n], 0.5f * (n * 300 - 3000) - 2.0f) << n;
}

TEST(Nifti, ReadsOtherDatatypesAndQformOrigin) {
  TempDir t;
  for (std::int16_t dt : {2, 8, 16, 64, 512}) {
    NiftiSpec s;
    s.big_endian = (dt == 64);
    s.datatype = dt;
    s.ndim = 2;  // a 2D image
    s.dims = {3, 2, 1, 1, 1, 1, 1};
    s.qform_code = 1;
    s.qoffset = {1, 2, 3};
    s.values = {0, 1, 2, 7, 200, 255};
    const fs::path p = t.path / ("dt" + std::to_string(dt) + ".nii");
    write_bytes(p, build_nifti(s));
    const VolumeF r = read_nifti(p);
    EXPECT_EQ(r.grid.dims, (std::array<int, 3>{3, 2, 1})) << "datatype " << dt;
    EXPECT_EQ(r.grid.origin_mm, (std::array<double, 3>{1, 2, 3})) << "datatype " << dt;
    for (int n = 0; n < 6; ++n) EXPECT_EQ(r.data[n], static_cast<float>(s.values[n])) << "datatype " << dt;
  }
}

TEST(Nifti, RejectsBadFiles) {
  TempDir t;
  write_nifti(t.path / "ok.nii", test_volume());

  // Truncated: the message says size, expected and actual.
  fs::copy_file(t.path / "ok.nii", t.path / "short.nii");
  fs::resize_file(t.path / "short.nii", fs::file_size(t.path / "ok.nii") - 4);
  const std::string m = message_of([&] { read_nifti(t.path / "short.nii"); });
  EXPECT_NE(m.find("size"), std::string::npos) << m;
  EXPECT_NE(m.find("short.nii"), std::string::npos) << m;
  EXPECT_NE(m.find(std::to_string(352 + 105 * 4)), std::string::npos) << m;  // expected size
  EXPECT_THROW(read_nifti(t.path / "short.nii"), InputError);

  EXPECT_THROW(read_nifti(t.path / "missing.nii"), InputError);
  EXPECT_NE(message_of([&] { read_nifti(t.path / "missing.nii"); }).find("missing.nii"), std::string::npos);

  NiftiSpec s;
  s.values.assign(1, 1.0);
  s.magic = "XYZ";
  write_bytes(t.path / "magic.nii", build_nifti(s));
  EXPECT_NE(message_of([&] { read_nifti(t.path / "magic.nii"); }).find("magic"), std::string::npos);

  s = NiftiSpec{};
  s.ndim = 4;
  s.dims = {1, 1, 1, 2, 1, 1, 1};  // a real 4th dimension
  s.values.assign(2, 1.0);
  write_bytes(t.path / "4d.nii", build_nifti(s));
  EXPECT_THROW(read_nifti(t.path / "4d.nii"), InputError);
  s.dims = {1, 1, 1, 1, 1, 1, 1};  // 4D with t = 1 is a 3D volume
  write_bytes(t.path / "4d1.nii", build_nifti(s));
  EXPECT_EQ(read_nifti(t.path / "4d1.nii").size(), 1u);

  s = NiftiSpec{};
  s.ndim = 0;
  s.values.assign(1, 1.0);
  write_bytes(t.path / "0d.nii", build_nifti(s));
  EXPECT_THROW(read_nifti(t.path / "0d.nii"), InputError);

  s = NiftiSpec{};
  s.datatype = 32;  // complex64
  write_bytes(t.path / "cplx.nii", build_nifti(s));
  EXPECT_NE(message_of([&] { read_nifti(t.path / "cplx.nii"); }).find("datatype"), std::string::npos);

  write_text(t.path / "garbage.nii", std::string(400, 'x'));
  EXPECT_THROW(read_nifti(t.path / "garbage.nii"), InputError);
}
