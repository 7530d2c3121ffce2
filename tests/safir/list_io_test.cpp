// Readers and writers of STIR's SAFIR coincidence list (+ crystal map) and CASToR list-mode:
// round trips, and corrupt files refused with one message naming the file and the fault.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "compute/core/error.hpp"
#include "compute/safir/list_io.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::safir {
namespace {

ListMode sample(const Scanner& sc) {
  ListMode lm;
  lm.events = {{sc.id(0, 0), sc.id(90, 179)}, {sc.id(45, 17), sc.id(3, 100)}, {sc.id(7, 1), sc.id(8, 2)}};
  lm.time_s = {0.0005, 0.0025, 1.25};
  lm.duration_s = 2.0;
  lm.delayed = 5;
  return lm;
}

template <class F>
void expect_input_error(F&& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no InputError, expected one mentioning '" << part << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

void write_bytes(const std::filesystem::path& p, const std::string& b) { std::ofstream(p, std::ios::binary) << b; }
std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(SafirListIo, ClmSafirRoundTripWithTimeMarksAndDelayed) {
  tomo::test::TempDir dir;
  const Scanner sc;
  const ListMode lm = sample(sc);
  const auto p = dir.dir / "a.clm.safir";
  write_clm_safir(p, lm, sc);
  // 32 header bytes, 3 time marks (0, 2, 1250 ms), 3 events.
  EXPECT_EQ(std::filesystem::file_size(p), 32u + 6 * 8);
  const ListMode back = read_clm_safir(p, sc);
  ASSERT_EQ(back.events.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(back.events[i].a, lm.events[i].a);
    EXPECT_EQ(back.events[i].b, lm.events[i].b);
  }
  EXPECT_DOUBLE_EQ(back.time_s[1], 0.002);
  EXPECT_DOUBLE_EQ(back.time_s[2], 1.25);
  // A delayed record (bit 62) and a record by hand: ringA 2, ringB 3, detA 4, detB 5, layers 0.
  std::string bytes = read_bytes(p);
  const std::uint64_t delayed = (std::uint64_t{1} << 62) | 1, hand = 2 | (3 << 8) | (4 << 16) | (std::uint64_t{5} << 32);
  bytes.append(reinterpret_cast<const char*>(&delayed), 8).append(reinterpret_cast<const char*>(&hand), 8);
  write_bytes(p, bytes);
  const ListMode more = read_clm_safir(p, sc);
  EXPECT_EQ(more.delayed, 1u);
  ASSERT_EQ(more.events.size(), 4u);
  EXPECT_EQ(more.events[3].a, sc.id(2, 4));
  EXPECT_EQ(more.events[3].b, sc.id(3, 5));
}

TEST(SafirListIo, ClmSafirRefusesCorruptFiles) {
  tomo::test::TempDir dir;
  const Scanner sc;
  const auto p = dir.dir / "bad.clm.safir";
  write_clm_safir(p, sample(sc), sc);
  const std::string good = read_bytes(p);
  write_bytes(p, good.substr(0, 20));
  expect_input_error([&] { read_clm_safir(p, sc); }, "shorter than the 32-byte");
  write_bytes(p, "NOT A " + good.substr(6));
  expect_input_error([&] { read_clm_safir(p, sc); }, "not a SAFIR coincidence list");
  write_bytes(p, good + "abc");
  expect_input_error([&] { read_clm_safir(p, sc); }, "not a whole number of 8-byte records");
  Scanner small = sc;
  small.rings = 40;
  write_bytes(p, good);
  expect_input_error([&] { read_clm_safir(p, small); }, "beyond the scanner's 40 rings");
  std::string back_in_time = good;
  const std::uint64_t mark = std::uint64_t{1} << 63;  // 0 ms after 1250 ms
  back_in_time.append(reinterpret_cast<const char*>(&mark), 8);
  write_bytes(p, back_in_time);
  expect_input_error([&] { read_clm_safir(p, sc); }, "goes back in time");
}

TEST(SafirListIo, CrystalMapRoundTripAndMismatches) {
  tomo::test::TempDir dir;
  Scanner sc;
  sc.rings = 3;
  sc.crystals = 8;
  const auto p = dir.dir / "map.txt";
  write_crystal_map(p, sc);
  EXPECT_NO_THROW(check_crystal_map(p, sc));
  Scanner other = sc;
  other.pitch_mm = 2.4;
  expect_input_error([&] { check_crystal_map(p, other); }, "from the scene's scanner geometry");
  const std::string map = read_bytes(p);
  write_bytes(p, map.substr(0, map.rfind('\n', map.size() - 2) + 1));  // the last crystal left out
  expect_input_error([&] { check_crystal_map(p, sc); }, "lists 23 crystals, the scanner has 24");
  write_bytes(p, "# comment\n0\t9\t1\t2\t3\n");
  expect_input_error([&] { check_crystal_map(p, sc); }, "is not a crystal of the 3");
  write_bytes(p, "0 0 x y z\n");
  expect_input_error([&] { check_crystal_map(p, sc); }, "expected 'ring det [layer] x y z'");
}

TEST(SafirListIo, CastorRoundTripAndCorruptFiles) {
  tomo::test::TempDir dir;
  const Scanner sc;
  const ListMode lm = sample(sc);
  const auto cdh = dir.dir / "run.cdh";
  write_castor(cdh, lm, sc);
  EXPECT_EQ(std::filesystem::file_size(dir.dir / "run.cdf"), 3u * 12);
  const ListMode back = read_list_mode(cdh, sc);
  ASSERT_EQ(back.events.size(), 3u);
  EXPECT_EQ(back.events[1].a, lm.events[1].a);
  EXPECT_EQ(back.events[2].b, lm.events[2].b);
  EXPECT_DOUBLE_EQ(back.time_s[2], 1.25);
  EXPECT_EQ(back.delayed, 5u);
  EXPECT_DOUBLE_EQ(back.duration_s, 2.0);
  const std::string header = read_bytes(cdh), data = read_bytes(dir.dir / "run.cdf");
  // A random-correction field adds 4 bytes per event: the sizes no longer match.
  write_bytes(cdh, header + "Random correction flag: 1\n");
  expect_input_error([&] { read_castor(cdh, sc); }, "events of 16 bytes");
  write_bytes(cdh, header);
  write_bytes(dir.dir / "run.cdf", data.substr(0, 30));
  expect_input_error([&] { read_castor(cdh, sc); }, "30 bytes, but");
  std::string big = data;
  const std::uint32_t beyond = sc.crystal_count();
  std::memcpy(big.data() + 4, &beyond, 4);
  write_bytes(dir.dir / "run.cdf", big);
  expect_input_error([&] { read_castor(cdh, sc); }, "has crystal id 16380");
  write_bytes(cdh, "Data mode: histogram\nData type: PET\n");
  expect_input_error([&] { read_castor(cdh, sc); }, "only list-mode");
  write_bytes(cdh, "Data mode: list-mode\nData type: PET\nData filename: run.cdf\nNumber of events: 1e400\n");
  expect_input_error([&] { read_castor(cdh, sc); }, "number of events: 1e400");
  write_bytes(cdh, "Data mode: list-mode\nData type: PET\nNumber of events: 3\n");
  expect_input_error([&] { read_castor(cdh, sc); }, "no 'data filename' line");
}

}  // namespace
}  // namespace tomo::safir
