// A RabbitCT file with non-finite pixels or a degenerate projection matrix is
// refused naming the file, the projection and the place (exit 2), instead of an inf or NaN volume.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include <unistd.h>

#include "compute/core/error.hpp"
#include "compute/fdk/rabbitct_file.hpp"

namespace fs = std::filesystem;

namespace tomo::fdk {
namespace {

RabbitData small_stack() {
  RabbitData d;
  d.hu_scale = {1000.0f, 0.0f};
  d.projections.sx = 6;
  d.projections.sy = 4;
  d.projections.matrices.resize(3);
  for (auto& m : d.projections.matrices) {
    m.at(0, 0) = 2, m.at(0, 2) = 1, m.at(0, 3) = 3;  // a pinhole camera along y
    m.at(1, 2) = 2, m.at(1, 1) = 0.5, m.at(1, 3) = 2;
    m.at(2, 1) = 1, m.at(2, 3) = 500;
  }
  d.projections.pixels.assign(6 * 4 * 3, 0.25f);
  return d;
}

std::string read_error(const RabbitData& d) {
  const fs::path p = fs::temp_directory_path() / ("tomo-rct-values-" + std::to_string(::getpid()) + ".rct");
  write_rabbitct(p, d);
  std::string e;
  try {
    read_rabbitct(p);
  } catch (const InputError& x) {
    e = x.what();
  }
  fs::remove(p);
  return e;
}

TEST(RabbitctValues, WellFormedStackIsRead) { EXPECT_EQ(read_error(small_stack()), ""); }

TEST(RabbitctValues, NonFinitePixelIsNamed) {
  for (float bad : {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    RabbitData d = small_stack();
    d.projections.pixels[6 * 4 * 2 + 6 * 3 + 5] = bad;  // projection 2, column 5, row 3
    const std::string e = read_error(d);
    EXPECT_NE(e.find("projection 2 has a non-finite pixel at column 5, row 3"), std::string::npos) << e;
  }
}

TEST(RabbitctValues, DegenerateMatrixIsNamed) {
  RabbitData d = small_stack();
  d.projections.matrices[1] = Mat34{};  // all zero: every voxel would divide by w = 0
  std::string e = read_error(d);
  EXPECT_NE(e.find("projection 1 has a degenerate matrix"), std::string::npos) << e;
  d = small_stack();
  for (int c = 0; c < 3; ++c) d.projections.matrices[0].at(2, c) = d.projections.matrices[0].at(0, c);  // rank 2
  e = read_error(d);
  EXPECT_NE(e.find("projection 0 has a degenerate matrix"), std::string::npos) << e;
}

}  // namespace
}  // namespace tomo::fdk
