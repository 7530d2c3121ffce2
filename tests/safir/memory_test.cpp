// safir's host-memory estimate: events, frame images and working images, and a scene whose
// frames cannot fit stops with InputError naming safir.frame_s.
#include <gtest/gtest.h>

#include <string>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/safir/memory.hpp"

namespace {

using namespace tomo::safir;

SafirConfig load(const std::string& body) {
  return SafirConfig::from_scene(tomo::Scene::load_string(
      "problem = \"safir\"\n[safir]\nimage = [10, 20, 5]\nvoxel_mm = 0.7\n" + body, "s.toml"));
}

TEST(SafirMemory, CountsEventsFrameImagesAndWorkingImages) {
  const SafirConfig c = load("events = 1000\n");
  EXPECT_EQ(expected_frames(c), 1u);
  // 2 lists of 1000 (8 + 8)-byte events, 2 frame images and 8 working images of 1000 doubles.
  EXPECT_EQ(estimate_memory(c, 1).bytes, 2 * 16 * 1000 + 2 * 8 * 1000 + 8 * 8 * 1000);
}

TEST(SafirMemory, FramesMultiplyTheFrameImages) {
  const SafirConfig c = load("events = 1000\nduration_s = 10.0\nframe_s = 0.25\n");
  EXPECT_EQ(expected_frames(c), 40u);
  const tomo::MemoryEstimate e = estimate_memory(c, expected_frames(c));
  EXPECT_EQ(e.bytes, 2 * 16 * 1000 + 2 * 40 * 8 * 1000 + 8 * 8 * 1000);
  EXPECT_EQ(e.largest_key, "safir.frame_s");
}

TEST(SafirMemory, EventsFromAFileAreNotCounted) {
  SafirConfig c = load("events = 1000\n");
  c.events_file = "events.clm.safir";
  EXPECT_EQ(estimate_memory(c, 3).bytes, 2 * 3 * 8 * 1000 + 8 * 8 * 1000);
}

TEST(SafirMemory, TooManyFramesStopWithTheKey) {
  const SafirConfig c = load("events = 1000\nduration_s = 1000000.0\nframe_s = 0.001\n");
  try {
    EXPECT_EQ(expected_frames(c), 1000000000u);
    tomo::require_host_memory(estimate_memory(c, expected_frames(c)), "safir run", 64.0 * (1ull << 30));
    FAIL() << "no InputError";
  } catch (const tomo::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("safir.frame_s"), std::string::npos) << e.what();
  }
}

}  // namespace
