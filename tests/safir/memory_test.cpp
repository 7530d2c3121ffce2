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
  // 2 lists of 1000 (8 + 8)-byte events, 2 frame images of 1000 doubles and the NIfTI's float
  // copy of one, and 8 working images of 1000 doubles.
  EXPECT_EQ(estimate_memory(c, 1).bytes, 2 * 16 * 1000 + 2 * 8 * 1000 + 4 * 1000 + 8 * 8 * 1000);
}

TEST(SafirMemory, FramesMultiplyTheFrameImages) {
  const SafirConfig c = load("events = 1000\nduration_s = 10.0\nframe_s = 0.25\n");
  EXPECT_EQ(expected_frames(c), 40u);
  const tomo::MemoryEstimate e = estimate_memory(c, expected_frames(c));
  EXPECT_EQ(e.bytes, 2 * 16 * 1000 + 40 * (2 * 8 + 4) * 1000 + 8 * 8 * 1000);
  EXPECT_EQ(e.largest_key, "safir.frame_s");
}

TEST(SafirMemory, EventsFromAFileAreNotCounted) {
  SafirConfig c = load("events = 1000\n");
  c.events_file = "events.clm.safir";
  EXPECT_EQ(estimate_memory(c, 3).bytes, 3 * (2 * 8 + 4) * 1000 + 8 * 8 * 1000);
}

TEST(SafirMemory, TooManyFramesStopWithTheKey) {
  const SafirConfig c = load("events = 1000\nduration_s = 30000.0\nframe_s = 1.0\n");
  try {
    EXPECT_EQ(expected_frames(c), 30000u);
    tomo::require_host_memory(estimate_memory(c, expected_frames(c)), "safir run", 100e6);
    FAIL() << "no InputError";
  } catch (const tomo::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("safir.frame_s"), std::string::npos) << e.what();
  }
}

// More frames than a 4D NIfTI file holds stop at once, naming the key and the count.
TEST(SafirMemory, MoreFramesThanANiftiHoldsStopAtOnce) {
  try {
    (void)load("events = 1000\nduration_s = 1000000.0\nframe_s = 0.001\n");
    FAIL() << "no InputError";
  } catch (const tomo::InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("safir.frame_s"), std::string::npos) << m;
    EXPECT_NE(m.find("1e+09 frames"), std::string::npos) << m;
    EXPECT_NE(m.find("at most 32767"), std::string::npos) << m;
  }
}

}  // namespace
