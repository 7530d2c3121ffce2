// Tests of the backend-free I/O besides NIfTI (nifti_test.cpp): atomic writes, OutputDir
// staging, PNG.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/io/atomic_file.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/output_dir.hpp"
#include "compute/io/png.hpp"
#include "tests/compute/io_support.hpp"

namespace fs = std::filesystem;
using namespace tomo;
using namespace tomo::io_test;

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
