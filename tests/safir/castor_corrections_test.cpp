// CASToR list-mode's per-event correction fields: written in CASToR's order (attenuation,
// scatter, random, normalization) with their header flags, read back as written, bad values
// refused by name; the layer's terms become CASToR's correction factors and rates.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>

#include "compute/core/error.hpp"
#include "compute/safir/list_io.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::safir {
namespace {

ListMode three_events(const Scanner& sc) {
  ListMode lm;
  lm.events = {{sc.id(0, 0), sc.id(90, 179)}, {sc.id(45, 17), sc.id(3, 100)}, {sc.id(7, 1), sc.id(8, 2)}};
  lm.time_s = {0.0005, 0.0025, 1.25};
  lm.duration_s = 2.0;
  return lm;
}

std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(SafirCastorCorrections, AllFourFieldsRoundTripInCastorsOrder) {
  tomo::test::TempDir dir;
  const Scanner sc;
  const ListMode lm = three_events(sc);
  const CastorCorrections c{.attenuation = {1.5f, 2.0f, 1.0f},
                            .scatter = {0.25f, 0.0f, 3.0f},
                            .random = {0.5f, 0.75f, 0.0f},
                            .normalisation = {1.25f, 4.0f, 1.0f}};
  const auto cdh = dir.dir / "run.cdh";
  write_castor(cdh, lm, sc, c);
  // 4 bytes of time, four floats, two crystal ids: CASToR's list-mode event with the four flags
  EXPECT_EQ(std::filesystem::file_size(dir.dir / "run.cdf"), 3u * 28);
  const std::string header = read_bytes(cdh);
  for (const char* flag : {"Attenuation correction flag: 1", "Scatter correction flag: 1", "Random correction flag: 1",
                           "Normalization correction flag: 1"})
    EXPECT_NE(header.find(flag), std::string::npos) << flag;
  // Event 1's fields in file order: ACF 2.0, scatter 0.0, random 0.75, NCF 4.0, then its ids.
  const std::string data = read_bytes(dir.dir / "run.cdf");
  float f[4];
  std::memcpy(f, data.data() + 28 + 4, 16);
  EXPECT_EQ(f[0], 2.0f);
  EXPECT_EQ(f[1], 0.0f);
  EXPECT_EQ(f[2], 0.75f);
  EXPECT_EQ(f[3], 4.0f);
  std::uint32_t ids[2];
  std::memcpy(ids, data.data() + 28 + 20, 8);
  EXPECT_EQ(ids[0], sc.id(45, 17));
  EXPECT_EQ(ids[1], sc.id(3, 100));

  CastorCorrections back;
  const ListMode read = read_castor(cdh, sc, &back);
  ASSERT_EQ(read.events.size(), 3u);
  EXPECT_EQ(read.events[2].a, lm.events[2].a);
  EXPECT_DOUBLE_EQ(read.time_s[2], 1.25);
  EXPECT_EQ(back.attenuation, c.attenuation);
  EXPECT_EQ(back.scatter, c.scatter);
  EXPECT_EQ(back.random, c.random);
  EXPECT_EQ(back.normalisation, c.normalisation);
}

TEST(SafirCastorCorrections, SomeFieldsOnlyAndTheLayersTerms) {
  tomo::test::TempDir dir;
  const Scanner sc;
  const ListMode lm = three_events(sc);
  // ȳ = m·(A x) + c over 2 s: NCF = 1/m, random rate = c / 2 s
  const std::vector<double> m{0.5, 0.25, 1.0}, add{1.0, 0.0, 3.0};
  const CastorCorrections c = castor_corrections(m, add, lm.duration_s);
  EXPECT_EQ(c.normalisation, (std::vector<float>{2.0f, 4.0f, 1.0f}));
  EXPECT_EQ(c.random, (std::vector<float>{0.5f, 0.0f, 1.5f}));
  EXPECT_TRUE(c.attenuation.empty() && c.scatter.empty());
  const auto cdh = dir.dir / "terms.cdh";
  write_castor(cdh, lm, sc, c);
  EXPECT_EQ(std::filesystem::file_size(dir.dir / "terms.cdf"), 3u * 20);
  EXPECT_EQ(read_bytes(cdh).find("Attenuation correction flag"), std::string::npos);
  CastorCorrections back;
  (void)read_castor(cdh, sc, &back);
  EXPECT_EQ(back.random, c.random);
  EXPECT_EQ(back.normalisation, c.normalisation);
  EXPECT_TRUE(back.attenuation.empty() && back.scatter.empty());
  // Without a correction request the events read as before.
  EXPECT_EQ(read_castor(cdh, sc).events.size(), 3u);
  // No fields: the plain 12-byte events and no flag.
  write_castor(cdh, lm, sc);
  EXPECT_EQ(std::filesystem::file_size(dir.dir / "terms.cdf"), 3u * 12);
  EXPECT_EQ(read_bytes(cdh).find("flag"), std::string::npos);
}

TEST(SafirCastorCorrections, BadFieldsAreRefusedByName) {
  tomo::test::TempDir dir;
  const Scanner sc;
  const ListMode lm = three_events(sc);
  const auto cdh = dir.dir / "bad.cdh";
  write_castor(cdh, lm, sc, {.normalisation = {1.0f, 0.0f, 1.0f}});
  CastorCorrections back;
  try {
    (void)read_castor(cdh, sc, &back);
    ADD_FAILURE() << "no InputError for an NCF of 0";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("event 1 has normalization factor 0; it must be finite and > 0"),
              std::string::npos)
        << e.what();
  }
  write_castor(cdh, lm, sc, {.random = {0.0f, -1.0f, 0.0f}});
  EXPECT_THROW((void)read_castor(cdh, sc, &back), InputError);
  EXPECT_THROW(write_castor(cdh, lm, sc, {.scatter = {1.0f}}), Error);  // one value for three events
  EXPECT_THROW((void)castor_corrections(std::vector<double>{0.0}, {}, 1.0), Error);
}

}  // namespace
}  // namespace tomo::safir
