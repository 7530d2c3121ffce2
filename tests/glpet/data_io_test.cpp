// glpet measured data in and out: the .npy/.nii layouts and the list-mode formats checked
// against hand-placed counts, round trips, every refusal naming the file and the position,
// and simulate → write → read → the same reconstruction, bit for bit, through `run`.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/glpet/data_io.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "compute/glpet/ring.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/npy.hpp"
#include "compute/io/output_dir.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::glpet {
namespace {

namespace fs = std::filesystem;

// 6 modules of 3 × 2 detectors, each paired with the three facing it (distance ≥ 2 around
// the ring): 9 pairs (0,2) (0,3) (0,4) (1,3) (1,4) (1,5) (2,4) (2,5) (3,5).
Scanner small_ring() {
  Ring r;
  r.modules = 6;
  r.radius_mm = 40;
  r.n_a = 3;
  r.n_t = 2;
  return ring_scanner(r);
}

std::vector<float> whole_counts(const Scanner& sc, std::uint64_t seed) {
  CounterRng rng(seed, 0);
  std::vector<float> c(sc.lor_count());
  for (float& x : c) x = float(int(rng.uniform() * 4));  // 0..3
  return c;
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return {};
}

TEST(GlpetDataIo, NpyLayoutIsPairPQRS) {
  const Scanner sc = small_ring();
  ASSERT_EQ(sc.pairs.size(), 9u);
  test::TempDir t;
  // Written by the generic .npy writer, not ours: one count at [pair 1, p=2, q=0, r=1, s=1].
  std::vector<float> a(9 * 3 * 2 * 3 * 2, 0.0f);
  a[(((1 * 3 + 2) * 2 + 0) * 3 + 1) * 2 + 1] = 7.0f;
  const std::size_t shape[5] = {9, 3, 2, 3, 2};
  write_npy(t.dir / "one.npy", a, shape);
  const auto c = read_counts(t.dir / "one.npy", sc);
  ASSERT_EQ(c.size(), sc.lor_count());
  const std::size_t l = sc.lor_offset(1) + sc.pairs[1].lor_index(2, 0, 1, 1);
  // Atlas texel (u, v) = (p·N_a + r, q·N_t + s) = (7, 1) of the 9 × 4 atlas of pair 1.
  EXPECT_EQ(l, sc.lor_offset(1) + 1 * 9 + 7);
  for (std::size_t i = 0; i < c.size(); ++i) EXPECT_EQ(c[i], i == l ? 7.0f : 0.0f) << i;
  // The flat (L,) form is the scanner's own order.
  const std::size_t flat[1] = {sc.lor_count()};
  write_npy(t.dir / "flat.npy", c, flat);
  EXPECT_EQ(read_counts(t.dir / "flat.npy", sc), c);
}

TEST(GlpetDataIo, CountsAndListModeRoundTrip) {
  const Scanner sc = small_ring();
  const auto c = whole_counts(sc, 3);
  test::TempDir t;
  for (const char* name : {"c.npy", "c.nii"}) {
    write_counts(t.dir / name, sc, c);
    EXPECT_EQ(read_counts(t.dir / name, sc), c) << name;
  }
  const auto ev = listmode_events(sc, c);
  double total = 0;
  for (float x : c) total += x;
  EXPECT_EQ(double(ev.size()), total);
  write_listmode_binary(t.dir / "e.lm", sc, ev);
  write_listmode_text(t.dir / "e.txt", ev);
  EXPECT_EQ(fs::file_size(t.dir / "e.lm"), kGlpetListModeHeaderBytes + 16 * ev.size());
  EXPECT_EQ(read_listmode(t.dir / "e.lm", sc), c);
  EXPECT_EQ(read_listmode(t.dir / "e.txt", sc), c);
  // The header by hand: "TGLM", version 1, 6 modules, 0, the event count.
  const std::string b = bytes_of(t.dir / "e.lm");
  std::uint32_t w[4];
  std::uint64_t n;
  std::memcpy(w, b.data(), 16);
  std::memcpy(&n, b.data() + 16, 8);
  EXPECT_EQ(b.substr(0, 4), "TGLM");
  EXPECT_EQ(w[1], 1u);
  EXPECT_EQ(w[2], 6u);
  EXPECT_EQ(w[3], 0u);
  EXPECT_EQ(n, ev.size());
}

TEST(GlpetDataIo, ListModeEventsLandOnTheirLor) {
  const Scanner sc = small_ring();
  test::TempDir t;
  // Module 3 detector 5 = (i, j) = (2, 1); module 0 detector 2 = (2, 0). Pair (0, 3) is pair 1
  // with module 0 first, so the event is its LOR (p, q, r, s) = (2, 0, 2, 1), in either order.
  std::ofstream(t.dir / "e.txt") << "# two events\n3 5 0 2\n\n0 2 3 5\n";
  const auto c = read_listmode(t.dir / "e.txt", sc);
  ASSERT_EQ(sc.module_ids(1), (std::array<int, 2>{0, 3}));
  const std::size_t l = sc.lor_offset(1) + sc.pairs[1].lor_index(2, 0, 2, 1);
  for (std::size_t i = 0; i < c.size(); ++i) EXPECT_EQ(c[i], i == l ? 2.0f : 0.0f) << i;
}

TEST(GlpetDataIo, BadDataIsRefusedNamingFileAndPosition) {
  const Scanner sc = small_ring();
  test::TempDir t;
  const fs::path d = t.dir;
  std::vector<float> c(sc.lor_count(), 1.0f);
  const std::size_t flat[1] = {c.size()};
  c[sc.lor_offset(2) + sc.pairs[2].lor_index(1, 1, 0, 1)] = std::numeric_limits<float>::quiet_NaN();
  write_npy(d / "nan.npy", c, flat);
  EXPECT_NE(refusal([&] { read_counts(d / "nan.npy", sc); }).find("nan.npy"), std::string::npos);
  c[sc.lor_offset(2) + sc.pairs[2].lor_index(1, 1, 0, 1)] = -2.0f;
  write_npy(d / "neg.npy", c, flat);
  const std::string neg = refusal([&] { read_counts(d / "neg.npy", sc); });
  EXPECT_NE(neg.find("neg.npy: negative count -2 at pair 2 (p, q, r, s) = (1, 1, 0, 1)"), std::string::npos) << neg;
  const std::size_t wrong[5] = {9, 2, 3, 2, 3};
  write_npy(d / "shape.npy", std::vector<float>(c.size(), 0.0f), wrong);
  EXPECT_NE(refusal([&] { read_counts(d / "shape.npy", sc); }).find("expected (9, 3, 2, 3, 2)"), std::string::npos);
  VolumeF v;
  v.grid.dims = {9, 4, 8};
  v.data.assign(9 * 4 * 8, 1.0f);
  write_nifti(d / "few.nii", v);
  EXPECT_NE(refusal([&] { read_counts(d / "few.nii", sc); }).find("expected N_a^2 x N_t^2 x pairs = 9 x 4 x 9"),
            std::string::npos);

  auto text = [&](const std::string& body) {
    std::ofstream(d / "t.txt") << body;
    return refusal([&] { read_listmode(d / "t.txt", sc); });
  };
  EXPECT_NE(text("0 0 3 0\n6 0 0 0\n").find("t.txt:2: module 6 is not in the scanner"), std::string::npos);
  EXPECT_NE(text("0 6 3 0\n").find("t.txt:1: detector 6 is not on module 0"), std::string::npos);
  EXPECT_NE(text("0 0 1 0\n").find("modules 0 and 1 form no pair"), std::string::npos);
  EXPECT_NE(text("0 0 3\n").find("expected four whole numbers"), std::string::npos);
  EXPECT_NE(text("0 -1 3 0\n").find("out of range"), std::string::npos);

  const auto ev = listmode_events(sc, whole_counts(sc, 9));
  write_listmode_binary(d / "e.lm", sc, ev);
  std::string b = bytes_of(d / "e.lm");
  std::ofstream(d / "cut.lm", std::ios::binary) << b.substr(0, b.size() - 3);
  EXPECT_NE(refusal([&] { read_listmode(d / "cut.lm", sc); }).find("does not match the header's"), std::string::npos);
  std::string bad = b;
  bad[8] = 7;  // 7 modules
  std::ofstream(d / "mod.lm", std::ios::binary) << bad;
  EXPECT_NE(refusal([&] { read_listmode(d / "mod.lm", sc); }).find("scanner of 7 modules"), std::string::npos);
  bad = b;
  bad[24 + 16 * 3] = 9;  // event 3's module_a
  std::ofstream(d / "ev.lm", std::ios::binary) << bad;
  EXPECT_NE(refusal([&] { read_listmode(d / "ev.lm", sc); }).find("event 3 (byte 72): module 9"), std::string::npos);
  std::vector<float> half(sc.lor_count(), 0.5f);
  EXPECT_THROW(listmode_events(sc, half), InputError);  // not whole events
}

// simulate → write (glpet.data.write) → read (glpet.data.counts / listmode) → the same
// reconstruction, bit for bit, on the cpu backend.
TEST(GlpetDataIo, RunReconstructsWrittenDataBitIdentically) {
  runtime_options().progress = false;
  test::TempDir t;
  auto run = [&](const std::string& name, const std::string& set) {
    Scene s = Scene::load_file(fs::path(TOMO_SOURCE_DIR) / "scenes" / "default.toml");
    for (const char* o : {"glpet.voxels=[6,6,4]", "glpet.voxel_mm=[7.0,7.0,7.0]", "glpet.iterations=2", "glpet.K=4",
                          "glpet.R=1", "glpet.mc.histories=200000"})
      s.apply_override(o);
    if (!set.empty()) s.apply_override(set);
    RunReport report;
    OutputDir out(t.dir / name, true);
    RunContext ctx{s, "cpu", out, report};
    ProblemRegistry::instance().find("glpet").run(ctx);
    out.commit();
    return report.json();
  };
  const auto sim = run("sim", "glpet.data.write=[\"c.npy\", \"c.nii\", \"e.lm\", \"e.txt\"]");
  EXPECT_EQ(sim["data_source"], "monte-carlo");
  const std::string image = bytes_of(t.dir / "sim" / "activity.nii");
  ASSERT_FALSE(image.empty());
  const std::pair<const char*, const char*> reads[] = {
      {"counts", "c.npy"}, {"counts", "c.nii"}, {"listmode", "e.lm"}, {"listmode", "e.txt"}};
  for (const auto& [key, file] : reads) {
    const std::string path = (t.dir / "sim" / file).string();
    const auto j = run(std::string("from_") + file, str_cat("glpet.data.", key, "=\"", path, "\""));
    EXPECT_EQ(j["data_source"], path);
    EXPECT_EQ(j["metrics"]["measured_counts"], sim["metrics"]["measured_counts"]) << file;
    EXPECT_TRUE(bytes_of(t.dir / (std::string("from_") + file) / "activity.nii") == image) << file;
  }
}

}  // namespace
}  // namespace tomo::glpet
