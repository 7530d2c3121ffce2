// Host-memory estimates: the numbers of small scenes counted by hand, and the
// refusal message that names the keys and the sizes.
#include <gtest/gtest.h>

#include "compute/core/error.hpp"
#include "compute/core/memory.hpp"
#include "compute/core/scene.hpp"
#include "compute/fdk/memory.hpp"
#include "compute/glpet/memory.hpp"
#include "compute/strip/config.hpp"
#include "compute/strip/memory.hpp"

namespace {

using tomo::MemoryEstimate;

constexpr const char* kGlpet = R"(problem = "glpet"
[glpet]
voxels = [4, 4, 2]
[[glpet.modules]]
centre = [0.0, 0.0, -80.0]
normal = [0.0, 0.0, 1.0]
axis_a = [1.0, 0.0, 0.0]
detectors = [2, 3]
pitch_mm = [4.0, 4.0]
[[glpet.modules]]
centre = [0.0, 0.0, 80.0]
normal = [0.0, 0.0, -1.0]
axis_a = [1.0, 0.0, 0.0]
detectors = [2, 3]
pitch_mm = [4.0, 4.0]
)";

TEST(Memory, FormatsBytesInBinaryUnits) {
  EXPECT_EQ(tomo::format_bytes(512), "512 B");
  EXPECT_EQ(tomo::format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(tomo::format_bytes(12.0 * 1024 * 1024), "12.0 MiB");
  EXPECT_EQ(tomo::format_bytes(32.0 * 1024 * 1024 * 1024), "32.0 GiB");
}

TEST(Memory, HostMemoryAvailableIsPositive) { EXPECT_GT(tomo::host_memory_available(), 0.0); }

TEST(Memory, RefusesWithKeysEstimateAndAvailable) {
  MemoryEstimate e;
  e.key("glpet.voxels", "[2048, 2048, 2048]");
  e.add(4, 32.0 * 1024 * 1024 * 1024, "volumes", "glpet.voxels");
  EXPECT_EQ(e.bytes, 128.0 * 1024 * 1024 * 1024);
  EXPECT_NO_THROW(tomo::require_host_memory(e, "glpet", 200.0 * 1024 * 1024 * 1024));
  try {
    tomo::require_host_memory(e, "glpet", 22.0 * 1024 * 1024 * 1024);
    FAIL() << "no InputError";
  } catch (const tomo::InputError& x) {
    EXPECT_STREQ(x.what(),
                 "glpet: needs about 128.0 GiB of host memory (glpet.voxels = [2048, 2048, 2048]: 4 volumes of "
                 "32.0 GiB; 22.0 GiB available): reduce glpet.voxels");
  }
}

TEST(Memory, GlpetCountsVolumesHistogramsAndLorVectors) {
  const tomo::Scene s = tomo::Scene::load_string(kGlpet, "m.toml");
  // 4·4·2 = 32 voxels; (2²)·(3²) = 36 LORs; 2 threads.
  // run: 5 float volumes + 3 double volumes + 2 uint32 and 1 double histograms + 3 float LOR vectors.
  EXPECT_EQ(tomo::glpet::estimate_memory(s, false, 2).bytes, 5 * 4 * 32 + 3 * 8 * 32 + 2 * 4 * 36 + 8 * 36 + 3 * 4 * 36);
  // crosscheck: the 2 full-grid float volumes + 5 float LOR vectors.
  EXPECT_EQ(tomo::glpet::estimate_memory(s, true, 2).bytes, 2 * 4 * 32 + 5 * 4 * 36);
  const auto e = tomo::glpet::estimate_memory(s, false, 2);
  ASSERT_EQ(e.keys.size(), 2u);
  EXPECT_EQ(e.keys[0].second, "[4, 4, 2]");
  EXPECT_EQ(e.keys[1].second, "2x3");
}

TEST(Memory, FdkCountsVolumesAndTheProjectionStack) {
  tomo::fdk::CArmGeometry g;
  g.projections = 3;
  g.sx = 4;
  g.sy = 5;
  EXPECT_EQ(tomo::fdk::estimate_memory(10, g, true, 4, "fdk.L", "fdk.geometry.").bytes, 4 * 4 * 1000 + 4 * 3 * 4 * 5);
  const auto file = tomo::fdk::estimate_memory(10, g, false, 4, "fdk.L", "fdk.geometry.");
  EXPECT_EQ(file.bytes, 4 * 4 * 1000);
  ASSERT_EQ(file.keys.size(), 1u);
  EXPECT_EQ(file.keys[0].first, "fdk.L");
}

TEST(Memory, StripCountsEventsAndImages) {
  const tomo::Scene s = tomo::Scene::load_string(
      "problem = \"strip\"\n[strip]\nevents = 1000\nn_y = 10\nn_z = 20\n[[strip.phantom]]\nx = 0.0\ny = 0.0\n"
      "a = 10.0\nb = 10.0\nphi = 0.0\nrho = 1.0\n",
      "s.toml");
  const auto c = tomo::strip::StripConfig::from_scene(s);
  // 2 lists of 1000 12-byte events + 6 images of 10·20 doubles.
  EXPECT_EQ(tomo::strip::estimate_memory(c).bytes, 2 * 12 * 1000 + 6 * 8 * 200);
}

}  // namespace
