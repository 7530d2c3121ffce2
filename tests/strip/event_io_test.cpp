// List-mode files: binary and text round-trips, and wrong-size / malformed files rejected
// with tomo::InputError.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "compute/core/error.hpp"
#include "compute/strip/event_io.hpp"
#include "compute/strip/simulator.hpp"

namespace tomo::strip {
namespace {

std::filesystem::path temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("tomo_strip_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

std::vector<Event> sample_events() {
  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 4.0);
  return simulate_phantom(g, {10.0, 40.0}, StripPhantom::appendix_a(), 1000, 42);
}

void expect_equal(const std::vector<Event>& a, const std::vector<Event>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].z_u, b[i].z_u) << i;
    ASSERT_EQ(a[i].z_d, b[i].z_d) << i;
    ASSERT_EQ(a[i].dl, b[i].dl) << i;
  }
}

TEST(StripEventIo, BinaryRoundTripIsExact) {
  const auto ev = sample_events();
  const auto p = temp_path("events.lm");
  write_events_binary(p, ev);
  EXPECT_EQ(std::filesystem::file_size(p), kListModeHeaderBytes + 12 * ev.size());
  expect_equal(read_events_binary(p), ev);
  expect_equal(read_events(p), ev);
}

TEST(StripEventIo, TextRoundTripIsExact) {
  const auto ev = sample_events();
  const auto p = temp_path("events.txt");
  write_events_text(p, ev);
  expect_equal(read_events_text(p), ev);
  expect_equal(read_events(p), ev);
}

TEST(StripEventIo, WrongSizeFileIsRejected) {
  const auto ev = sample_events();
  const auto p = temp_path("short.lm");
  write_events_binary(p, ev);
  std::filesystem::resize_file(p, std::filesystem::file_size(p) - 4);  // truncated mid-event
  EXPECT_THROW(read_events_binary(p), InputError);
  write_events_binary(p, ev);
  { std::ofstream(p, std::ios::app | std::ios::binary) << "xx"; }  // trailing bytes
  EXPECT_THROW(read_events(p), InputError);
  { std::ofstream(p, std::ios::binary) << "TSLM"; }  // header cut short
  EXPECT_THROW(read_events_binary(p), InputError);
}

TEST(StripEventIo, BadMagicVersionAndTextAreRejected) {
  const auto p = temp_path("bad.lm");
  { std::ofstream(p, std::ios::binary) << "ABCD0000000000000000"; }
  EXPECT_THROW(read_events_binary(p), InputError);
  write_events_binary(p, sample_events());
  {
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4);
    const char v = 7;
    f.write(&v, 1);
  }
  EXPECT_THROW(read_events_binary(p), InputError);
  const auto t = temp_path("bad.txt");
  { std::ofstream(t) << "# header\n1 2 3\n4 5\n"; }
  EXPECT_THROW(read_events_text(t), InputError);
  { std::ofstream(t) << "1 2 nan\n"; }
  EXPECT_THROW(read_events_text(t), InputError);
  EXPECT_THROW(read_events(temp_path("does_not_exist.lm")), InputError);
}

}  // namespace
}  // namespace tomo::strip
