// Interfile images: our writer's header checked key by key against the keys STIR writes, its
// data bytes read back independently, round trips (3-D and series), headers as STIR and CASToR
// write them (byte order, integer types, scaling, offsets, CASToR's centred offset, spelling),
// and the refusals of what cannot be honoured, each with its message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "compute/io/interfile.hpp"
#include "tests/support/input_errors.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace tomo;
using tomo::test::message_of;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void put(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}

template <class T>
std::string raw(const std::vector<T>& v, bool big_endian) {
  std::string s;
  for (T x : v) {
    char b[sizeof(T)];
    std::memcpy(b, &x, sizeof(T));
    if (big_endian) std::reverse(b, b + sizeof(T));
    s.append(b, sizeof(T));
  }
  return s;
}

// The header's `key := value` lines as a map, parsed here with a regular expression (not by
// the reader under test).
std::map<std::string, std::string> keys_of(const std::string& text) {
  std::map<std::string, std::string> m;
  static const std::regex line(R"re(^([^;:\n]*?)[ \t]*:=[ \t]*(.*?)[ \t\r]*$)re", std::regex::multiline);
  for (std::sregex_iterator it(text.begin(), text.end(), line), end; it != end; ++it) m[(*it)[1]] = (*it)[2];
  return m;
}

VolumeF labelled(Grid3 g) {
  VolumeF v(g);
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) v.at(i, j, k) = static_cast<float>(i + 10 * j + 100 * k) - 0.25f;
  return v;
}

}  // namespace

TEST(Interfile, WrittenHeaderHasStirKeysAndTheDataAreLittleEndianFloats) {
  test::TempDir t;
  const VolumeF v = labelled(Grid3{{4, 3, 2}, {2.0, 2.5, 3.27}, {-3.0, -2.5, 10.0}});
  write_interfile(t.dir / "act.hv", v, {"activity (ML-EM)", "a.u."});
  const std::string text = slurp(t.dir / "act.hv");
  EXPECT_EQ(text.rfind("!INTERFILE :=\n", 0), 0u);
  EXPECT_NE(text.find("\n!END OF INTERFILE :=\n"), std::string::npos);
  const auto k = keys_of(text);
  EXPECT_EQ(k.at("name of data file"), "act.v");
  EXPECT_EQ(k.at("!version of keys"), "STIR6.0");
  EXPECT_EQ(k.at("imagedata byte order"), "LITTLEENDIAN");
  EXPECT_EQ(k.at("!PET data type"), "Image");
  EXPECT_EQ(k.at("!number format"), "float");
  EXPECT_EQ(k.at("!number of bytes per pixel"), "4");
  EXPECT_EQ(k.at("number of dimensions"), "3");
  EXPECT_EQ(k.at("matrix axis label [1]"), "x");
  EXPECT_EQ(k.at("matrix axis label [3]"), "z");
  EXPECT_EQ(k.at("!matrix size [1]"), "4");
  EXPECT_EQ(k.at("!matrix size [2]"), "3");
  EXPECT_EQ(k.at("!matrix size [3]"), "2");
  EXPECT_EQ(k.at("scaling factor (mm/pixel) [1]"), "2");
  EXPECT_EQ(k.at("scaling factor (mm/pixel) [2]"), "2.5");
  EXPECT_EQ(k.at("scaling factor (mm/pixel) [3]"), "3.27");
  EXPECT_EQ(k.at("first pixel offset (mm) [1]"), "-3");
  EXPECT_EQ(k.at("first pixel offset (mm) [2]"), "-2.5");
  EXPECT_EQ(k.at("first pixel offset (mm) [3]"), "10");
  EXPECT_EQ(k.at("number of time frames"), "1");
  EXPECT_NE(text.find("; tomoraster quantity: activity (ML-EM) [a.u.]\n"), std::string::npos);
  // The data file: 24 little-endian floats, x fastest, nothing else.
  const std::string data = slurp(t.dir / "act.v");
  ASSERT_EQ(data.size(), 24u * 4);
  EXPECT_EQ(data, raw(v.data, false));
  float f;
  std::memcpy(&f, data.data() + 4 * (1 + 4 * 2 + 12 * 1), 4);  // voxel (1, 2, 1)
  EXPECT_EQ(f, 1 + 20 + 100 - 0.25f);
}

TEST(Interfile, RoundTripKeepsGridValuesAndQuantity) {
  test::TempDir t;
  const VolumeF v = labelled(Grid3{{5, 4, 3}, {0.7, 0.7, 1.4}, {-1.4, -1.05, -1.4}});
  write_interfile(t.dir / "x.hv", v, {"attenuation", "1/mm"});
  NiftiMeta meta;
  const VolumeF r = read_interfile(t.dir / "x.hv", meta);
  EXPECT_EQ(r.grid.dims, v.grid.dims);
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(r.grid.voxel_mm[a], v.grid.voxel_mm[a], 1e-9);
    EXPECT_NEAR(r.grid.origin_mm[a], v.grid.origin_mm[a], 1e-9);
  }
  EXPECT_EQ(r.data, v.data);
  EXPECT_EQ(meta.quantity, "attenuation");
  EXPECT_EQ(meta.unit, "1/mm");
}

TEST(Interfile, SeriesRoundTripWithStirFrameKeys) {
  test::TempDir t;
  NiftiSeries s{.grid = Grid3{{3, 2, 2}, {1, 1, 1}, {0, 0, 0}}, .data = {}, .frames = 3, .frame_s = 5.0};
  for (int i = 0; i < 36; ++i) s.data.push_back(static_cast<float>(i * i));
  write_interfile(t.dir / "dyn.hv", s);
  const auto k = keys_of(slurp(t.dir / "dyn.hv"));
  EXPECT_EQ(k.at("number of time frames"), "3");
  EXPECT_EQ(k.at("data offset in bytes[3]"), "96");
  EXPECT_EQ(k.at("image duration (sec)[2]"), "5");
  EXPECT_EQ(k.at("image relative start time (sec)[3]"), "10");
  const NiftiSeries r = read_interfile_series(t.dir / "dyn.hv");
  EXPECT_EQ(r.frames, 3);
  EXPECT_DOUBLE_EQ(r.frame_s, 5.0);
  EXPECT_EQ(r.data, s.data);
  EXPECT_EQ(message_of([&] { (void)read_interfile(t.dir / "dyn.hv"); }),
            "Interfile header '" + (t.dir / "dyn.hv").string() +
                "': holds 3 time frames; one image is read here (a series is read with read_interfile_series)");
}

// A header as STIR's write_basic_interfile_image_header writes it for 16-bit data, big-endian,
// with a data offset and a scale factor.
TEST(Interfile, ReadsAStirHeaderWithIntegersBigEndianOffsetAndScale) {
  test::TempDir t;
  const std::vector<std::int16_t> values{-3, 0, 7, 1000, -32768, 32767, 5, 6};
  put(t.dir / "s.v", std::string(16, 'x') + raw(values, true));
  put(t.dir / "s.hv",
      "!INTERFILE  :=\n!imaging modality := PT\noriginating system := ECAT 962\n!version of keys := STIR6.0\n"
      "name of data file := s.v\n!GENERAL DATA :=\n!GENERAL IMAGE DATA :=\n!type of data := PET\n"
      "imagedata byte order := BIGENDIAN\n!PET STUDY (General) :=\n!PET data type := Image\n"
      "process status := Reconstructed\n!number format := signed integer\n!number of bytes per pixel := 2\n"
      "number of dimensions := 3\nmatrix axis label [1] := x\n!matrix size [1] := 2\n"
      "scaling factor (mm/pixel) [1] := 2.25\nmatrix axis label [2] := y\n!matrix size [2] := 2\n"
      "scaling factor (mm/pixel) [2] := 2.25\nmatrix axis label [3] := z\n!matrix size [3] := 2\n"
      "scaling factor (mm/pixel) [3] := 2.425\nfirst pixel offset (mm) [1] := -1.125\n"
      "first pixel offset (mm) [2] := -1.125\nfirst pixel offset (mm) [3] := 0\nnumber of time frames := 1\n"
      "image scaling factor[1] := 0.5\ndata offset in bytes[1] := 16\nquantification units := 0.5\n"
      "!END OF INTERFILE :=\n");
  const VolumeF v = read_interfile(t.dir / "s.hv");
  EXPECT_EQ(v.grid.dims, (std::array<int, 3>{2, 2, 2}));
  EXPECT_DOUBLE_EQ(v.grid.voxel_mm[2], 2.425);
  EXPECT_DOUBLE_EQ(v.grid.origin_mm[0], -1.125);
  EXPECT_DOUBLE_EQ(v.grid.origin_mm[2], 0.0);
  // image scaling factor applies once (STIR repeats it as quantification units).
  const std::vector<float> want{-1.5f, 0.0f, 3.5f, 500.0f, -16384.0f, 16383.5f, 2.5f, 3.0f};
  EXPECT_EQ(v.data, want);
}

// A header as CASToR writes it: "short float", keys without ":=" for sections, the image centre's
// shift under "first pixel offset", a rescale slope and a unit in "quantification units".
TEST(Interfile, ReadsACastorHeaderWithItsCentredOffset) {
  test::TempDir t;
  const std::vector<float> values{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  put(t.dir / "c.img", raw(values, false));
  put(t.dir / "c.hdr",
      "!INTERFILE := \n!imaging modality := PET\n!version of keys := CASToRv3.1\nCASToR version := 3.1\n\n"
      "!GENERAL DATA := \n!originating system := SAFIR\n!data offset in bytes := 0\n!name of data file := c.img\n"
      "patient name := c\n\n!GENERAL IMAGE DATA \n!type of data := Static\n!total number of images := 2\n"
      "imagedata byte order := LITTLEENDIAN\n!study duration (sec) := 1\n\n!STATIC STUDY (General) :=\n"
      "number of dimensions := 3\n!matrix size [1] := 3\n!matrix size [2] := 2\n!matrix size [3] := 2\n"
      "!number format := short float\n!number of bytes per pixel := 4\nscaling factor (mm/pixel) [1] := 2\n"
      "scaling factor (mm/pixel) [2] := 2\nscaling factor (mm/pixel) [3] := 4\nfirst pixel offset (mm) [1] := 10\n"
      "first pixel offset (mm) [2] := 0\nfirst pixel offset (mm) [3] := -1\ndata rescale offset := 0\n"
      "data rescale slope := 2\nquantification units := kBq/cc\n!image duration (sec) := 1\n"
      "!image start time (sec) := 0\n!END OF INTERFILE := \n");
  const VolumeF v = read_interfile(t.dir / "c.hdr");
  // CASToR centres the image on the offset: the first voxel lies (n - 1)/2 voxels before it.
  EXPECT_DOUBLE_EQ(v.grid.origin_mm[0], 10.0 - 2.0);
  EXPECT_DOUBLE_EQ(v.grid.origin_mm[1], -1.0);
  EXPECT_DOUBLE_EQ(v.grid.origin_mm[2], -1.0 - 2.0);
  ASSERT_EQ(v.data.size(), 12u);
  for (std::size_t i = 0; i < 12; ++i) EXPECT_EQ(v.data[i], 2.0f * values[i]);
}

TEST(Interfile, KeysAreReadWhateverTheirCaseSpacingAndBang) {
  test::TempDir t;
  put(t.dir / "d.raw", raw(std::vector<double>{1.5, -2.5}, false));
  put(t.dir / "d.hv",
      "!interfile:=\r\nName Of Data File:=d.raw ; a comment\r\n!NUMBER FORMAT := LONG FLOAT\r\n"
      "Imagedata Byte Order := littleendian\r\n!MATRIX SIZE[1]:=2\r\nmatrix size [2] := 1\r\n"
      "!matrix size [3]:=1\r\nScaling Factor (mm/pixel)[1] := 3\r\n!END OF INTERFILE:=\r\nmatrix size [1] := 99\r\n");
  const VolumeF v = read_interfile(t.dir / "d.hv");
  EXPECT_EQ(v.grid.dims, (std::array<int, 3>{2, 1, 1}));
  EXPECT_DOUBLE_EQ(v.grid.voxel_mm[0], 3.0);
  EXPECT_DOUBLE_EQ(v.grid.origin_mm[0], -3.0);  // no offset, not CASToR: STIR's index -floor(n/2) at x = -n/2 voxels
  EXPECT_EQ(v.data, (std::vector<float>{1.5f, -2.5f}));
}

TEST(Interfile, RefusesWhatItCannotHonourInOneLineNamingFileAndKey) {
  test::TempDir t;
  const fs::path h = t.dir / "bad.hv";
  const std::string name = "Interfile header '" + h.string() + "'";
  put(t.dir / "bad.v", std::string(32, '\0'));
  const std::string base = "!INTERFILE :=\nname of data file := bad.v\n!number format := float\n"
                           "!number of bytes per pixel := 4\nimagedata byte order := LITTLEENDIAN\n";
  auto refusal = [&](const std::string& text) {
    put(h, text);
    return message_of([&] { (void)read_interfile(h); });
  };
  const std::string dims = "!matrix size [1] := 2\n!matrix size [2] := 2\n!matrix size [3] := 2\n";
  EXPECT_EQ(refusal(base + dims), "no exception");
  EXPECT_EQ(refusal("name of data file := bad.v\n" + dims),
            name + ": line 1 is 'name of data file := bad.v'; an Interfile header starts with '!INTERFILE :='");
  EXPECT_EQ(refusal("just text\n"), name + ": no '!INTERFILE :=' line; not an Interfile header");
  EXPECT_EQ(refusal(std::string("!INTERFILE :=\n\0\1", 16)), name + ": binary data, not an Interfile header");
  EXPECT_EQ(refusal("!INTERFILE :=\n" + dims), name + ": no '!name of data file' key");
  EXPECT_EQ(refusal(base + "!matrix size [1] := 2\n!matrix size [2] := 2\n"), name + ": no '!matrix size [3]' key");
  EXPECT_EQ(refusal(base + dims + "!matrix size [3] := {2,3}\n"),
            name + ": key '!matrix size [3]' lists several values ('{2,3}'): projection data, not an image");
  EXPECT_EQ(refusal(base + dims + "!PET data type := Emission\n"),
            name + ": '!PET data type := Emission' is projection data, not an image");
  EXPECT_EQ(refusal(base + dims + "matrix axis label [1] := tangential coordinate\n"),
            name + ": 'matrix axis label [1] := tangential coordinate'; images with axes x, y, z are read");
  EXPECT_EQ(refusal(base + dims + "!number format := bit\n"),
            name + ": '!number format := bit' is not read (float, short float, long float, signed integer, "
                   "unsigned integer are)");
  EXPECT_EQ(refusal(base + dims + "!number of bytes per pixel := 2\n"),
            name + ": '!number format := float' with 2 bytes per pixel; 4 or 8 are read");
  EXPECT_EQ(refusal(base + dims + "imagedata byte order := middle\n"),
            name + ": 'imagedata byte order := middle' is neither LITTLEENDIAN nor BIGENDIAN");
  EXPECT_EQ(refusal(base + dims + "scaling factor (mm/pixel) [2] := -1\n"),
            name + ": 'scaling factor (mm/pixel) [2]' must be > 0, got -1.000000");
  EXPECT_EQ(refusal(base + dims + "first pixel offset (mm) [1] := nan\n"),
            name + ": key 'first pixel offset (mm) [1]' has value 'nan', not a finite number");
  EXPECT_EQ(refusal(base + dims + "!matrix size [2] := 0\n"),
            name + ": key '!matrix size [2]' has value '0', expected a whole number in 1..1073741824");
  EXPECT_EQ(refusal(base + "number of dimensions := 4\n" + dims + "!matrix size [4] := 3\n"),
            name + ": 'number of dimensions := 4' with more than one element along axis 4; images of up to 3 "
                   "dimensions are read (frames by 'number of time frames')");
  EXPECT_EQ(refusal(base + "!matrix size [1] := 1024\n!matrix size [2] := 1024\n!matrix size [3] := 1024\n"),
            name + ": declares 1024x1024x1024 voxels in 1 frame(s), more than the 536870912 an image may have");
  // The data file: too short (checked before allocating), missing, a folder, non-finite values.
  const std::string data = "Interfile data file '" + (t.dir / "bad.v").string() + "' of " + name;
  EXPECT_EQ(refusal(base + "!matrix size [1] := 3\n!matrix size [2] := 3\n!matrix size [3] := 1\n"),
            data + ": holds 32 bytes, the header asks for 36 (offset 0 + 3x3x1 voxels of 4 bytes)");
  EXPECT_EQ(refusal(base + dims + "data offset in bytes[1] := 4\n"),
            data + ": holds 32 bytes, the header asks for 36 (offset 4 + 2x2x2 voxels of 4 bytes)");
  EXPECT_NE(refusal("!INTERFILE :=\nname of data file := none.v\n!number format := float\n" + dims)
                .find("none.v"),
            std::string::npos);
  fs::create_directory(t.dir / "dir.v");
  EXPECT_EQ(refusal("!INTERFILE :=\nname of data file := dir.v\n!number format := float\n" + dims),
            "Interfile data file '" + (t.dir / "dir.v").string() + "': is a folder, not a file");
  std::vector<float> nan(8, 1.0f);
  nan[6] = std::numeric_limits<float>::quiet_NaN();
  put(t.dir / "bad.v", raw(nan, false));
  EXPECT_EQ(refusal(base + dims), data + ": voxel (0, 1, 1) is NaN; images must hold finite values");
}

TEST(Interfile, WriterRefusesBadGridsAndADataFileAsHeader) {
  test::TempDir t;
  VolumeF v(Grid3{{2, 2, 2}, {1, 1, 1}, {0, 0, 0}});
  EXPECT_THROW(write_interfile(t.dir / "x.v", v), Error);
  v.grid.voxel_mm[1] = 0;
  EXPECT_THROW(write_interfile(t.dir / "x.hv", v), Error);
  EXPECT_FALSE(fs::exists(t.dir / "x.hv"));
}
