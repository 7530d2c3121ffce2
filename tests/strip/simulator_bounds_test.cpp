// The strip simulator must end, with one clear message, when the strips cannot
// see the phantom — beyond the strip ends as well as beyond the strips' separation.
#include <gtest/gtest.h>

#include <chrono>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/strip/config.hpp"
#include "compute/strip/simulator.hpp"

namespace tomo::strip {
namespace {

StripConfig config_with_phantom(const std::string& phantom) {
  const std::string text = "problem = \"strip\"\n[strip]\nevents = 1000\n" + phantom;
  return StripConfig::from_scene(Scene::load_string(text, "<test>"));
}

std::string simulate_error(const StripConfig& c) {
  try {
    simulate_phantom(c.geometry, c.resolution, c.phantom, 1000, 1, nullptr);
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

TEST(StripSimulatorBounds, PhantomBeyondTheStripEndsIsRefusedAtOnce) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto c = config_with_phantom("[[strip.phantom]]\nx = 100000.0\ny = 0.0\na = 3.0\nb = 6.0\nphi = 0.0\nrho = 1.0\n");
  EXPECT_NE(simulate_error(c).find("outside the strips"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

TEST(StripSimulatorBounds, PhantomTheStripsBarelySeeEndsWithAMessage) {
  // A sliver just inside a corner of the field of view: almost no line through it meets both strips.
  const auto c0 = config_with_phantom("");
  const double z = 0.5 * c0.geometry.L - 1e-7, y = c0.geometry.R - 1e-7;
  const auto c = config_with_phantom("[[strip.phantom]]\nx = " + std::to_string(z + 5.0) + "\ny = " +
                                     std::to_string(y + 5.0) + "\na = 5.00001\nb = 5.00001\nphi = 0.0\nrho = 1.0\n");
  const std::string e = simulate_error(c);
  EXPECT_NE(e.find("field of view"), std::string::npos) << e;
}

TEST(StripSimulatorBounds, OrdinaryPhantomStillSimulates) {
  const auto c = config_with_phantom("[[strip.phantom]]\nx = 0.0\ny = 0.0\na = 30.0\nb = 60.0\nphi = 0.0\nrho = 1.0\n");
  SimulationStats stats;
  const auto ev = simulate_phantom(c.geometry, c.resolution, c.phantom, 1000, 1, &stats);
  EXPECT_EQ(ev.size(), 1000u);
  EXPECT_GT(stats.emissions, 1000u);
}

}  // namespace
}  // namespace tomo::strip
