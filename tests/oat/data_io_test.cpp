// The oat data readers: .npy, PATATO and k-Wave round-trip through our writers with SI units
// converted (m → mm, Hz → MHz, m/s → mm/µs, k-Wave's 1-based column-major mask and (1, Nt, Nsens)
// layout), and refuse bad files with one InputError naming the file and what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "compute/core/error.hpp"
#include "compute/io/npy.hpp"
#include "compute/oat/data_io.hpp"
#include "tests/oat/small_geometry.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::oat::test {

namespace fs = std::filesystem;

// Expects InputError whose message contains every one of `parts`.
template <class F>
void expect_refusal(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    for (const auto& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

MeasuredData small_data() {
  MeasuredData d;
  d.positions_mm = {{10.0, 0.0, -2.0}, {0.0, 10.0, 3.0}, {-10.0, -1.0, 0.0}};
  d.samples = 4;
  d.fs_mhz = 25.0;
  d.c0_mm_per_us = 1.48;
  d.pressure = {0.5, -1.0, 2.0, 0.0, 1.0, 1.5, -0.25, 3.0, 0.0, 0.125, -2.0, 4.0};
  return d;
}

TEST(OatDataIo, NpyRoundTrip) {
  tomo::test::TempDir t;
  OatGeometry g = small_geometry(4, 1.0, 2, 3, 15.0);
  const auto u = random_positive(g.data_size(), 3);
  write_npy_data(t.dir / "u.npy", t.dir / "r.npy", g, u);
  const MeasuredData d = read_npy_data(t.dir / "u.npy", t.dir / "r.npy");
  ASSERT_EQ(d.positions_mm.size(), g.transducers.size());
  EXPECT_EQ(d.samples, g.time.samples);
  for (std::size_t i = 0; i < u.size(); ++i) EXPECT_NEAR(d.pressure[i], u[i], 1e-7 * u[i]);
  for (std::size_t q = 0; q < g.transducers.size(); ++q)
    for (int a = 0; a < 3; ++a) EXPECT_DOUBLE_EQ(d.positions_mm[q][a], g.transducers[q][a]);
}

TEST(OatDataIo, NpyRefusesBadShapesAndValues) {
  tomo::test::TempDir t;
  const std::vector<double> v = {1, 2, 3, 4, 5, 6};
  const std::size_t s1[1] = {6}, s23[2] = {2, 3}, s32[2] = {3, 2};
  write_npy(t.dir / "flat.npy", std::span<const double>(v), s1);
  write_npy(t.dir / "p.npy", std::span<const double>(v), s23);
  write_npy(t.dir / "r32.npy", std::span<const double>(v), s32);
  expect_refusal([&] { read_npy_data(t.dir / "flat.npy", t.dir / "p.npy"); }, {"flat.npy", "2-D"});
  expect_refusal([&] { read_npy_data(t.dir / "p.npy", t.dir / "r32.npy"); }, {"r32.npy", "transducer positions"});
  std::vector<double> nan = v;
  nan[4] = std::nan("");
  write_npy(t.dir / "nan.npy", std::span<const double>(nan), s23);
  expect_refusal([&] { read_npy_data(t.dir / "nan.npy", t.dir / "p.npy"); }, {"nan.npy", "must be finite"});
  std::ofstream(t.dir / "text.npy") << "hello";
  expect_refusal([&] { read_npy_data(t.dir / "text.npy", t.dir / "p.npy"); }, {"text.npy"});
}

TEST(OatDataIo, PatatoRoundTripConvertsSiUnits) {
  tomo::test::TempDir t;
  const MeasuredData d = small_data();
  if (!have_hdf5()) {
    EXPECT_THROW(write_patato(t.dir / "a.h5", d), UnavailableError);
    EXPECT_THROW(read_patato(t.dir / "a.h5"), UnavailableError);
    GTEST_SKIP() << "built without HDF5: the readers say so (UnavailableError)";
  }
  write_patato(t.dir / "a.h5", d);
  const MeasuredData r = read_patato(t.dir / "a.h5");
  EXPECT_EQ(r.samples, d.samples);
  EXPECT_NEAR(r.fs_mhz, 25.0, 1e-12);
  EXPECT_NEAR(r.c0_mm_per_us, 1.48, 1e-12);
  for (std::size_t i = 0; i < d.pressure.size(); ++i) EXPECT_FLOAT_EQ(r.pressure[i], d.pressure[i]);
  for (std::size_t q = 0; q < 3; ++q)
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(r.positions_mm[q][a], d.positions_mm[q][a], 1e-12);
  expect_refusal([&] { read_patato(t.dir / "a.h5", 1, 0); }, {"a.h5", "frame 1"});
}

TEST(OatDataIo, KwaveRoundTripConvertsTheMaskAndLayout) {
  if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
  tomo::test::TempDir t;
  MeasuredData d = small_data();
  d.positions_mm = {{2.0, 0.0, -1.0}, {0.0, 3.0, 1.0}, {-4.0, -1.0, 0.0}};  // on the 1 mm grid
  write_kwave(t.dir / "k.h5", d, {9, 8, 5}, 1.0);
  const MeasuredData r = read_kwave(t.dir / "k.h5");
  EXPECT_EQ(r.samples, 4);
  EXPECT_NEAR(r.fs_mhz, 25.0, 1e-4);
  EXPECT_NEAR(r.c0_mm_per_us, 1.48, 1e-6);
  for (std::size_t i = 0; i < d.pressure.size(); ++i) EXPECT_FLOAT_EQ(r.pressure[i], d.pressure[i]);
  for (std::size_t q = 0; q < 3; ++q)
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(r.positions_mm[q][a], d.positions_mm[q][a], 1e-5);
}

TEST(OatDataIo, HdfReadersRefuseBadFiles) {
  if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
  tomo::test::TempDir t;
  std::ofstream(t.dir / "text.h5") << "not hdf5 at all";
  expect_refusal([&] { read_patato(t.dir / "text.h5"); }, {"text.h5", "not an HDF5 file"});
  expect_refusal([&] { read_kwave(t.dir / "text.h5"); }, {"text.h5", "not an HDF5 file"});
  write_patato(t.dir / "a.h5", small_data());
  expect_refusal([&] { read_kwave(t.dir / "a.h5"); }, {"a.h5", "no dataset 'Nx'"});
  MeasuredData d = small_data();
  d.positions_mm = {{2.0, 0.0, -1.0}, {0.0, 3.0, 1.0}, {-4.0, -1.0, 0.0}};
  write_kwave(t.dir / "k.h5", d, {9, 8, 5}, 1.0);
  expect_refusal([&] { read_patato(t.dir / "k.h5"); }, {"k.h5", "no dataset 'raw_data'"});
  // Truncated: the first half of a valid file.
  const auto size = fs::file_size(t.dir / "a.h5");
  fs::copy_file(t.dir / "a.h5", t.dir / "cut.h5");
  fs::resize_file(t.dir / "cut.h5", size / 2);
  expect_refusal([&] { read_patato(t.dir / "cut.h5"); }, {"cut.h5"});
}

}  // namespace tomo::oat::test
