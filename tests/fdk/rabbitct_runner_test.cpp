// RabbitCT as its original runner reads and writes it: version-1 and version-2 files made by a
// small generator here (byte by byte, not our writer), a reference volume in its own file, the
// runner's metric against errors computed by hand, and its result outputs (.rctd + .vol).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/scene.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/rabbitct_file.hpp"
#include "compute/fdk/rabbitct_result.hpp"
#include "compute/io/output_dir.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace tomo;
using namespace tomo::fdk;

namespace {

// The generator: little-endian words appended to a byte vector, written with std::ofstream.
struct Bytes {
  std::vector<char> b;
  template <class T>
  void put(T v) {
    const char* p = reinterpret_cast<const char*>(&v);
    b.insert(b.end(), p, p + sizeof v);
  }
  void save(const fs::path& path) const { std::ofstream(path, std::ios::binary).write(b.data(), b.size()); }
};

// A file of N projections of sx×sy: matrices with entries 100·n + k + 1 (column-major order as
// stored), pixels n + 0.001·index; `ref_L` > 0 appends one cube of uint16 values 7·index mod 4096.
Bytes rabbit_file(int version, std::uint32_t sx, std::uint32_t sy, std::uint32_t N, int ref_L) {
  Bytes f;
  if (version == 2) f.put<std::uint32_t>(2);
  f.put(sx);
  f.put(sy);
  f.put(N);
  f.put(1500.5f);
  f.put(-24.0f);
  for (std::uint32_t n = 0; n < N; ++n) {
    for (int k = 0; k < 12; ++k) f.put(100.0 * n + k + 1 + (k % 4 == 0 ? 1000.0 : 0.0));  // keeps the 3x3 regular
    for (std::uint32_t i = 0; i < sx * sy; ++i) f.put(static_cast<float>(n + 0.001 * i));
  }
  for (int i = 0; i < ref_L * ref_L * ref_L; ++i) f.put(static_cast<std::uint16_t>(7 * i % 4096));
  return f;
}

void expect_content(const RabbitData& d, std::uint32_t sx, std::uint32_t sy, std::uint32_t N) {
  EXPECT_EQ(d.projections.sx, static_cast<int>(sx));
  EXPECT_EQ(d.projections.sy, static_cast<int>(sy));
  ASSERT_EQ(d.projections.count(), static_cast<int>(N));
  EXPECT_EQ(d.hu_scale[0], 1500.5f);
  EXPECT_EQ(d.hu_scale[1], -24.0f);
  EXPECT_EQ(d.projections.matrices[1].a[5], 100.0 + 5 + 1);           // a[5] = row 2, column 1
  EXPECT_EQ(d.projections.matrices[N - 1].a[8], 100.0 * (N - 1) + 9 + 1000.0);
  EXPECT_EQ(d.projections.image(1)[sx * sy - 1], static_cast<float>(1 + 0.001 * (sx * sy - 1)));
}

}  // namespace

TEST(RabbitctRunner, Version1AndVersion2HeadersReadTheSameData) {
  test::TempDir t;
  for (int version : {1, 2}) {
    const fs::path p = t.dir / (version == 1 ? "v1.rct" : "v2.rct");
    rabbit_file(version, 6, 4, 3, 5).save(p);
    EXPECT_EQ(read_rabbitct_header(p).version, version);
    const RabbitData d = read_rabbitct(p);
    EXPECT_EQ(d.version, version);
    expect_content(d, 6, 4, 3);
    ASSERT_EQ(d.references.size(), 1u);
    EXPECT_EQ(d.references[0].L, 5);
    EXPECT_EQ(d.references[0].hu[124], 7 * 124 % 4096);
    // Our writer reproduces the generator's bytes in either layout.
    const fs::path q = t.dir / "again.rct";
    write_rabbitct(q, d);
    std::ifstream a(p, std::ios::binary), b(q, std::ios::binary);
    EXPECT_TRUE(std::equal(std::istreambuf_iterator<char>(a), {}, std::istreambuf_iterator<char>(b)));
  }
}

TEST(RabbitctRunner, TheRunnersVersion1DetectorWidthsAndAWidthOfTwoAreVersion1) {
  test::TempDir t;
  const fs::path p = t.dir / "wide.rct";
  rabbit_file(1, 1248, 2, 1, 0).save(p);  // the runner's v1 marker: 1240 or 1248 in the first word
  EXPECT_EQ(read_rabbitct(p).version, 1);
  rabbit_file(1, 2, 3, 2, 0).save(p);  // first word 2, yet only the v1 reading fits the size
  const RabbitData d = read_rabbitct(p);
  EXPECT_EQ(d.version, 1);
  expect_content(d, 2, 3, 2);
}

TEST(RabbitctRunner, TruncatedVersion2FileNamesTheFileAndTheLayout) {
  test::TempDir t;
  const fs::path p = t.dir / "cut.rct";
  Bytes f = rabbit_file(2, 6, 4, 3, 0);
  f.b.resize(f.b.size() - 10);
  f.save(p);
  try {
    read_rabbitct(p);
    FAIL() << "truncated v2 file accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cut.rct"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("version-2"), std::string::npos) << e.what();
  }
}

TEST(RabbitctRunner, SeparateReferenceVolumeIsReadAndItsSizeChecked) {
  test::TempDir t;
  const fs::path p = t.dir / "Reference4.vol";
  Bytes f;
  for (int i = 0; i < 64; ++i) f.put(static_cast<std::uint16_t>(4095 - i));
  f.save(p);
  const ReferenceVolume r = read_reference_volume(p, 4);
  ASSERT_EQ(r.hu.size(), 64u);
  EXPECT_EQ(r.hu[0], 4095);
  EXPECT_EQ(r.hu[63], 4095 - 63);
  try {
    read_reference_volume(p, 8);
    FAIL() << "a 4³ file accepted as 8³";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has 1024 bytes, the file has 128"), std::string::npos) << e.what();
  }
}

// Eight voxels with HUScale = [1000, −24]; HU = floor(1000·f − 24 + 0.5) for f > 0 (exact in float
// for these f), clamped above 4095 only, so −8 HU stays negative.
//   f    0    −0.5  1.0  0.25  0.0625  0.015625  5.0   0.5
//   HU   0    0     976  226   39      −8        4095  476
//   ref  0    3     970  226   49      0         4000  487
//   |e|  0    3     6    0     10      8         95    11
// MSE = (9 + 36 + 100 + 64 + 9025 + 121) / 8 = 1169.375; max 95; bins 0:2, 3:1, 6:1, 8:1, ≥10: 3.
TEST(RabbitctRunner, MetricMatchesHandComputedErrors) {
  VolumeF v;
  v.grid.dims = {2, 2, 2};
  v.data = {0.0f, -0.5f, 1.0f, 0.25f, 0.0625f, 0.015625f, 5.0f, 0.5f};
  const std::array<float, 2> s{1000.0f, -24.0f};
  const std::vector<float> hu = to_hu(v, s);
  EXPECT_EQ(hu, (std::vector<float>{0, 0, 976, 226, 39, -8, 4095, 476}));
  const std::vector<std::uint16_t> ref = {0, 3, 970, 226, 49, 0, 4000, 487};
  const RabbitMetric m = rabbit_metric(hu, ref);
  EXPECT_DOUBLE_EQ(m.mse, 1169.375);
  EXPECT_DOUBLE_EQ(m.rmse, std::sqrt(1169.375));
  EXPECT_DOUBLE_EQ(m.max_abs, 95.0);
  EXPECT_DOUBLE_EQ(m.psnr_db, 10.0 * std::log10(4095.0 * 4095.0 / 1169.375));
  const std::array<std::uint32_t, 11> bins = {2, 0, 0, 1, 0, 0, 1, 0, 1, 0, 3};
  EXPECT_EQ(m.histogram, bins);
  // A fractional error (two HU volumes of ours) falls into bin floor(|e|).
  const RabbitMetric f = rabbit_metric(std::vector<float>{1.0f, 2.0f}, std::vector<float>{0.25f, 11.5f});
  EXPECT_EQ(f.histogram[0], 1u);   // 0.75
  EXPECT_EQ(f.histogram[9], 1u);   // 9.5
}

TEST(RabbitctRunner, ResultFileHasTheRunnersLayout) {
  test::TempDir t;
  RabbitResult r;
  r.L = 2;
  r.hu = {1, 2, 3, 4, 5, 6, 7, 8};
  r.runtime_us = even_runtimes_us(1.0, 3);  // 1000 µs over 3 projections
  EXPECT_EQ(r.runtime_us, (std::vector<std::uint64_t>{334, 333, 333}));
  r.metric.mse = 2.5;
  r.metric.max_abs = 4;
  r.metric.histogram[10] = 9;
  for (int version : {1, 2}) {
    r.version = version;
    const fs::path res = t.dir / "result.rctd", vol = t.dir / "result.rctd.vol";
    write_rabbitct_result(res, vol, r);
    EXPECT_EQ(fs::file_size(vol), 8u * 4u);
    std::ifstream in(res, std::ios::binary);
    const std::vector<char> b{std::istreambuf_iterator<char>(in), {}};
    const std::size_t head = version == 2 ? 16 : 12;
    ASSERT_EQ(b.size(), head + 3 * 8 + 4 * 4 + 8 + 8 + 11 * 4 + 4);
    std::int32_t w[4];
    std::memcpy(w, b.data(), 16);
    EXPECT_EQ(w[0], version == 2 ? 531982 : 591984);
    if (version == 2) {
      EXPECT_EQ(w[1], 2);
    }
    EXPECT_EQ(w[head / 4 - 2], 2);  // L
    EXPECT_EQ(w[head / 4 - 1], 3);  // N
    std::uint64_t t0;
    std::memcpy(&t0, b.data() + head, 8);
    EXPECT_EQ(t0, 334u);
    float slice[4];  // k = L/2 − 1 = 0: the first L² voxels
    std::memcpy(slice, b.data() + head + 24, 16);
    EXPECT_EQ(slice[3], 4.0f);
    double mse, mx;
    std::memcpy(&mse, b.data() + head + 40, 8);
    std::memcpy(&mx, b.data() + head + 48, 8);
    EXPECT_EQ(mse, 2.5);
    EXPECT_EQ(mx, 4.0);
    std::uint32_t last_bin;
    std::int32_t end;
    std::memcpy(&last_bin, b.data() + head + 56 + 40, 4);
    std::memcpy(&end, b.data() + b.size() - 4, 4);
    EXPECT_EQ(last_bin, 9u);
    EXPECT_EQ(end, version == 2 ? 289135 : 489195);
  }
}

// End to end: a version-2 file and a separate reference → the run reports the runner's metric
// and writes result.rctd (version 2) and the HU volume.
TEST(RabbitctRunner, RunWritesTheRunnersOutputsForAVersion2File) {
  test::TempDir t;
  CArmGeometry g;
  g.projections = 8;
  g.sx = 12;
  g.sy = 10;
  g.pixel_mm = 40.0;
  Bytes f;
  f.put<std::uint32_t>(2);
  f.put<std::uint32_t>(12);
  f.put<std::uint32_t>(10);
  f.put<std::uint32_t>(8);
  f.put(1000.0f);
  f.put(0.0f);
  for (int n = 0; n < 8; ++n) {
    for (double a : g.matrix(n).a) f.put(a);
    for (int i = 0; i < 120; ++i) f.put(0.001f);
  }
  f.save(t.dir / "input.rct");
  Bytes ref;
  for (int i = 0; i < 64; ++i) ref.put(static_cast<std::uint16_t>(8));
  ref.save(t.dir / "Reference4.vol");
  Scene s = Scene::load_string("problem = \"fdk\"\n[fdk]\nL = 4\ninput = \"" + (t.dir / "input.rct").string() +
                                   "\"\nreference_volume = \"" + (t.dir / "Reference4.vol").string() + "\"\n",
                               "<test>");
  RunReport report;
  const fs::path out_dir = t.dir / "out";
  {
    OutputDir out(out_dir, false);
    RunContext ctx{s, "cpu", out, report};
    ProblemRegistry::instance().find("fdk").run(ctx);
    out.commit();
  }
  EXPECT_EQ(fs::file_size(out_dir / "result.rctd.vol"), 64u * 4u);
  std::ifstream in(out_dir / "result.rctd", std::ios::binary);
  std::int32_t head[4];
  in.read(reinterpret_cast<char*>(head), sizeof head);
  EXPECT_EQ(head[0], 531982);
  EXPECT_EQ(head[1], 2);
  EXPECT_EQ(head[2], 4);
  EXPECT_EQ(head[3], 8);
  EXPECT_EQ(report.json()["rabbitct_version"], 2);
  EXPECT_TRUE(report.json()["metrics"].contains("file_reference_mse_hu2"));
  EXPECT_EQ(report.json()["metrics"]["file_reference_abs_error_histogram"].size(), 11u);
}
