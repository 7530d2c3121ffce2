// RabbitCT file format: exact round trip, byte layout, and wrong sizes rejected naming the file.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

#include "compute/core/error.hpp"
#include "compute/fdk/rabbitct_file.hpp"

namespace fs = std::filesystem;
using namespace tomo::fdk;

namespace {

fs::path temp_path(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("tomo_fdk_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

RabbitData sample(int sx, int sy, int n, int ref_L) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> U(-5.f, 5.f);
  RabbitData d;
  d.hu_scale = {1234.5f, -17.25f};
  d.projections.sx = sx;
  d.projections.sy = sy;
  d.projections.matrices.resize(n);
  for (auto& m : d.projections.matrices)
    for (double& a : m.a) a = U(rng) * 1000.0 + 1e-7;
  d.projections.pixels.resize(static_cast<std::size_t>(sx) * sy * n);
  for (float& p : d.projections.pixels) p = U(rng);
  if (ref_L > 0) {
    ReferenceVolume r;
    r.L = ref_L;
    r.hu.resize(ref_L * ref_L * ref_L);
    for (auto& h : r.hu) h = static_cast<std::uint16_t>(rng() % 4096);
    d.references.push_back(r);
  }
  return d;
}

}  // namespace

TEST(RabbitctFile, RoundTripIsExact) {
  const RabbitData d = sample(7, 5, 4, 6);
  const fs::path p = temp_path("round.rct");
  write_rabbitct(p, d);
  // header 20 B + 4·(96 + 7·5·4) + 6³·2
  EXPECT_EQ(fs::file_size(p), 20u + 4u * (96u + 140u) + 432u);
  const RabbitData r = read_rabbitct(p);
  EXPECT_EQ(r.projections.sx, 7);
  EXPECT_EQ(r.projections.sy, 5);
  ASSERT_EQ(r.projections.count(), 4);
  EXPECT_EQ(r.hu_scale, d.hu_scale);
  for (int n = 0; n < 4; ++n) EXPECT_EQ(r.projections.matrices[n].a, d.projections.matrices[n].a);
  EXPECT_EQ(r.projections.pixels, d.projections.pixels);
  ASSERT_EQ(r.references.size(), 1u);
  EXPECT_EQ(r.references[0].L, 6);
  EXPECT_EQ(r.references[0].hu, d.references[0].hu);
  fs::remove(p);
}

TEST(RabbitctFile, ByteLayoutIsTheRabbitctOne) {
  RabbitData d = sample(3, 2, 2, 0);
  d.projections.matrices[1].at(1, 3) = 42.0;  // row 1, column 3 → a[10]
  const fs::path p = temp_path("layout.rct");
  write_rabbitct(p, d);
  std::ifstream in(p, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  std::uint32_t u[3];
  std::memcpy(u, bytes.data(), 12);
  EXPECT_EQ(u[0], 3u);
  EXPECT_EQ(u[1], 2u);
  EXPECT_EQ(u[2], 2u);
  float hu[2];
  std::memcpy(hu, bytes.data() + 12, 8);
  EXPECT_EQ(hu[0], d.hu_scale[0]);
  // second projection starts at 20 + 96 + 6·4; its a[10] is the 11th double.
  double a10;
  std::memcpy(&a10, bytes.data() + 20 + 96 + 24 + 10 * 8, 8);
  EXPECT_EQ(a10, 42.0);
  float first_pixel_second;
  std::memcpy(&first_pixel_second, bytes.data() + 20 + 96 + 24 + 96, 4);
  EXPECT_EQ(first_pixel_second, d.projections.image(1)[0]);
  fs::remove(p);
}

TEST(RabbitctFile, WrongSizesAreInputErrorsNamingTheFile) {
  const RabbitData d = sample(4, 4, 3, 0);
  const fs::path p = temp_path("short.rct");
  write_rabbitct(p, d);
  fs::resize_file(p, fs::file_size(p) - 4);  // truncated
  try {
    read_rabbitct(p);
    FAIL() << "truncated file accepted";
  } catch (const tomo::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("short.rct"), std::string::npos) << e.what();
  }
  write_rabbitct(p, d);
  {
    std::ofstream app(p, std::ios::binary | std::ios::app);
    app.write("abc", 3);  // 3 trailing bytes: no uint16 cube
  }
  EXPECT_THROW(read_rabbitct(p), tomo::InputError);
  std::ofstream(p, std::ios::binary).write("\0\0\0\0", 4);  // header cut short
  EXPECT_THROW(read_rabbitct_header(p), tomo::InputError);
  EXPECT_THROW(read_rabbitct(temp_path("does_not_exist.rct")), tomo::InputError);
  fs::remove(p);
}

TEST(RabbitctFile, RabbitctReferenceSequenceIsRecognised) {
  RabbitData d = sample(2, 2, 1, 0);
  const fs::path p = temp_path("seq.rct");
  write_rabbitct(p, d);
  {
    std::ofstream app(p, std::ios::binary | std::ios::app);
    std::vector<char> zeros(2ull * 128 * 128 * 128 + 2ull * 256 * 256 * 256, 0);  // 128³ then 256³
    app.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  const RabbitData r = read_rabbitct(p);
  ASSERT_EQ(r.references.size(), 2u);
  EXPECT_EQ(r.references[0].L, 128);
  EXPECT_EQ(r.references[1].L, 256);
  EXPECT_EQ(read_rabbitct(p, false).references.size(), 0u);
  fs::remove(p);
}
