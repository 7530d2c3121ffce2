// Tests of the backend-free I/O: NIfTI-1 round trip and header bytes, byte-swapped and
// other-datatype files, rejection of bad files, atomic writes, OutputDir staging, PNG.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "compute/core/error.hpp"
#include "compute/io/atomic_file.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/output_dir.hpp"
#include "compute/io/png.hpp"

namespace fs = std::filesystem;
using namespace tomo;

namespace {

// A fresh directory per test, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = fs::temp_directory_path() / ("tomo_io_test_" + std::to_string(::getpid()) + "_" + info->name() + "_" +
                                        std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::vector<unsigned char> read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
std::string read_text(const fs::path& p) {
  auto b = read_all(p);
  return {b.begin(), b.end()};
}
void write_text(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

template <class T>
T at(const std::vector<unsigned char>& b, std::size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no exception>";
}

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

void write_bytes(const fs::path& p, const std::vector<unsigned char>& b) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
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

TEST(AtomicFile, ReplacesTargetAndLeavesNoTempFiles) {
  TempDir t;
  const fs::path p = t.path / "out.txt";
  write_text(p, "original");
  write_text_atomic(p, "new contents");
  EXPECT_EQ(read_text(p), "new contents");
  EXPECT_EQ(listing(t.path), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, FailingFillDoesNotTouchTarget) {
  TempDir t;
  const fs::path p = t.path / "out.txt";
  write_text(p, "original");
  EXPECT_THROW(write_file_atomic(p,
                                 [](std::ostream& os) {
                                   os << "half written";
                                   throw std::runtime_error("fill failed");
                                 }),
               std::runtime_error);
  EXPECT_EQ(read_text(p), "original");
  EXPECT_EQ(listing(t.path), std::vector<std::string>{"out.txt"});

  // A directory that does not exist: the error names the path.
  const std::string m = message_of([&] { write_text_atomic(t.path / "no" / "such.txt", "x"); });
  EXPECT_NE(m.find("such.txt"), std::string::npos) << m;
}

TEST(OutputDir, RefusesExistingDirectoryWithoutForce) {
  TempDir t;
  fs::create_directory(t.path / "run");
  write_text(t.path / "run" / "mine.txt", "user data");
  try {
    OutputDir od(t.path / "run", false);
    FAIL() << "an existing directory was accepted without --force";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("exists; use --force"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_text(t.path / "run" / "mine.txt"), "user data");
  EXPECT_EQ(listing(t.path), std::vector<std::string>{"run"});
}

TEST(OutputDir, CreatesNestedDirectoryOnCommit) {
  TempDir t;
  const fs::path dir = t.path / "a" / "b" / "run";
  {
    OutputDir od(dir, false);
    write_text(od.file("report.json"), "{}");
    write_text(od.file("slices/mid.png"), "png");
    EXPECT_FALSE(fs::exists(dir));  // nothing visible before commit
    od.commit();
    EXPECT_EQ(od.files(), (std::vector<std::string>{"report.json", "slices/mid.png"}));
  }
  EXPECT_EQ(read_text(dir / "report.json"), "{}");
  EXPECT_EQ(read_text(dir / "slices" / "mid.png"), "png");
  EXPECT_EQ(listing(dir.parent_path()), std::vector<std::string>{"run"});  // no staging left
  EXPECT_THROW(OutputDir(dir, false).file("x"), InputError);
}

TEST(OutputDir, ForceKeepsUnrelatedFilesAndReplacesSameNamed) {
  TempDir t;
  const fs::path dir = t.path / "run";
  fs::create_directory(dir);
  write_text(dir / "keep.txt", "keep me");
  write_text(dir / "report.json", "old");
  {
    OutputDir od(dir, true);
    write_text(od.file("report.json"), "new");
    write_text(od.file("image.nii"), "img");
    od.commit();
  }
  EXPECT_EQ(read_text(dir / "keep.txt"), "keep me");
  EXPECT_EQ(read_text(dir / "report.json"), "new");
  EXPECT_EQ(read_text(dir / "image.nii"), "img");
  EXPECT_EQ(listing(dir), (std::vector<std::string>{"image.nii", "keep.txt", "report.json"}));
  EXPECT_EQ(listing(t.path), std::vector<std::string>{"run"});
}

TEST(OutputDir, FailedRunRemovesStagingOnly) {
  TempDir t;
  try {
    OutputDir od(t.path / "fresh", false);
    write_text(od.file("partial.nii"), "half");
    throw std::runtime_error("run failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(listing(t.path).empty());

  fs::create_directory(t.path / "existing");
  write_text(t.path / "existing" / "report.json", "old");
  {
    OutputDir od(t.path / "existing", true);
    write_text(od.file("report.json"), "new");
  }  // no commit
  EXPECT_EQ(read_text(t.path / "existing" / "report.json"), "old");
  EXPECT_EQ(listing(t.path), std::vector<std::string>{"existing"});
}

TEST(Png, FileHasSignatureAndSize) {
  TempDir t;
  Image2D img{5, 3, std::vector<float>(15)};
  for (int n = 0; n < 15; ++n) img.pixels[n] = static_cast<float>(n);
  write_png(t.path / "a.png", img, ColorMap::Viridis);
  const auto b = read_all(t.path / "a.png");
  ASSERT_GT(b.size(), 33u);
  const unsigned char sig[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  EXPECT_EQ(std::memcmp(b.data(), sig, 8), 0);
  EXPECT_EQ(std::memcmp(b.data() + 12, "IHDR", 4), 0);
  EXPECT_EQ(b[16 + 3], 5);  // width, big-endian
  EXPECT_EQ(b[20 + 3], 3);  // height
  EXPECT_EQ(listing(t.path), std::vector<std::string>{"a.png"});
  EXPECT_THROW(write_png_rgb(t.path / "b.png", 2, 2, std::vector<unsigned char>(5)), Error);
}

TEST(Png, ColorizeGivesDocumentedColours) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Image2D img{4, 1, {0.0f, 1.0f, nan, 0.5f}};
  auto px = [](const std::vector<unsigned char>& rgb, int i) {
    return std::array<int, 3>{rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]};
  };
  using C = std::array<int, 3>;
  const auto gray = colorize(img, ColorMap::Gray, 0, 1);
  EXPECT_EQ(px(gray, 0), (C{0, 0, 0}));
  EXPECT_EQ(px(gray, 1), (C{255, 255, 255}));
  EXPECT_EQ(px(gray, 2), (C{0, 0, 0}));  // NaN is black
  EXPECT_EQ(px(gray, 3), (C{128, 128, 128}));
  const auto hot = colorize(img, ColorMap::Hot, 0, 1);
  EXPECT_EQ(px(hot, 0), (C{0, 0, 0}));
  EXPECT_EQ(px(hot, 1), (C{255, 255, 255}));
  const auto vir = colorize(img, ColorMap::Viridis, 0, 1);
  EXPECT_EQ(px(vir, 0), (C{0x44, 0x01, 0x54}));
  EXPECT_EQ(px(vir, 1), (C{0xFD, 0xE7, 0x25}));
  EXPECT_EQ(px(vir, 3), (C{0x21, 0x90, 0x8C}));
  const auto hsv = colorize(img, ColorMap::Hsv, 0, 1);
  EXPECT_EQ(px(hsv, 0), (C{255, 0, 0}));
  EXPECT_EQ(px(hsv, 1), (C{255, 0, 0}));
  EXPECT_EQ(px(hsv, 3), (C{0, 255, 255}));  // half way round: cyan

  // Auto window (lo == hi): min → black, max → white; out-of-window values clamp.
  const Image2D img2{3, 1, {-4.0f, 6.0f, 1.0f}};
  const auto a = colorize(img2, ColorMap::Gray);
  EXPECT_EQ(px(a, 0), (C{0, 0, 0}));
  EXPECT_EQ(px(a, 1), (C{255, 255, 255}));
  EXPECT_EQ(px(a, 2), (C{128, 128, 128}));
  EXPECT_EQ(px(colorize(img2, ColorMap::Gray, 0, 1), 0), (C{0, 0, 0}));
  EXPECT_EQ(px(colorize(img2, ColorMap::Gray, 0, 1), 1), (C{255, 255, 255}));
  // Constant image: mid grey.
  const auto c = colorize(Image2D{2, 1, {3.0f, 3.0f}}, ColorMap::Gray);
  EXPECT_EQ(px(c, 0), (C{128, 128, 128}));

  EXPECT_EQ(color_map_from_name("viridis"), ColorMap::Viridis);
  EXPECT_THROW(color_map_from_name("jet"), InputError);
}

TEST(Png, SliceMipAndMontageOrientation) {
  VolumeF v(Grid3{{3, 2, 4}, {1, 1, 1}, {0, 0, 0}});
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 3; ++i) v.at(i, j, k) = static_cast<float>(i + 10 * j + 100 * k);
  const Image2D xy = slice(v, 2, 1);  // width x, height y, row 0 = highest y
  ASSERT_EQ(xy.width, 3);
  ASSERT_EQ(xy.height, 2);
  EXPECT_EQ(xy.pixels[0], v.at(0, 1, 1));
  EXPECT_EQ(xy.pixels[3 + 2], v.at(2, 0, 1));
  const Image2D yz = slice(v, 0, 2);  // width y, height z
  ASSERT_EQ(yz.width, 2);
  ASSERT_EQ(yz.height, 4);
  EXPECT_EQ(yz.pixels[0], v.at(2, 0, 3));
  EXPECT_EQ(yz.pixels[3 * 2 + 1], v.at(2, 1, 0));
  EXPECT_THROW(slice(v, 2, 4), InputError);

  const Image2D mz = mip(v, 2);  // max over z: k = 3
  EXPECT_EQ(mz.pixels[0], v.at(0, 1, 3));
  const Image2D mx = mip(v, 0);  // max over x: i = 2
  EXPECT_EQ(mx.pixels[0], v.at(2, 0, 3));

  const Image2D m = montage({xy, yz});
  EXPECT_EQ(m.width, 3 + 2 + 2);
  EXPECT_EQ(m.height, 4);
  EXPECT_EQ(m.pixels[0], xy.pixels[0]);
  EXPECT_TRUE(std::isnan(m.pixels[3]));   // gap
  EXPECT_EQ(m.pixels[5], yz.pixels[0]);
  EXPECT_TRUE(std::isnan(m.pixels[3 * 7]));  // padding under the shorter image
}
