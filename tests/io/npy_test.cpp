// .npy round trips and refusals; the reference files are written by python3-numpy when it
// is installed (an independent writer), else the test of that part says so and fails.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/io/npy.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo {
namespace {

TEST(Npy, RoundTripFloatAndShape) {
  test::TempDir dir;
  std::vector<float> v(2 * 3 * 4);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.5f * static_cast<float>(i) - 3.0f;
  const std::vector<std::size_t> shape{2, 3, 4};
  write_npy(dir.dir / "a.npy", std::span<const float>(v), shape);
  const NpyArray a = read_npy(dir.dir / "a.npy");
  EXPECT_EQ(a.shape, shape);
  EXPECT_EQ(a.to_float("a"), v);
  const std::vector<std::size_t> any_rows{0, 3, 4};
  EXPECT_NO_THROW(require_npy_shape(a, any_rows, "a"));
  const std::vector<std::size_t> wrong{2, 4, 4};
  EXPECT_THROW(require_npy_shape(a, wrong, "a"), InputError);
}

TEST(Npy, ReadsNumpyWrittenFortranUint16AndRefusesNaN) {
  test::TempDir dir;
  const std::string script = "import numpy as n; d='" + dir.dir.string() +
                             "'; a=n.arange(24,dtype=n.uint16).reshape(2,3,4); n.save(d+'/u.npy', a);"
                             " n.save(d+'/f.npy', n.asfortranarray(a.astype(n.float64)));"
                             " n.save(d+'/nan.npy', n.array([1.0, n.nan], dtype=n.float32))";
  ASSERT_EQ(std::system(("/usr/bin/python3 -c \"" + script + "\"").c_str()), 0) << "Debian python3-numpy (/usr/bin/python3) is needed";
  const auto u = read_npy(dir.dir / "u.npy").to_float("u");
  const auto f = read_npy(dir.dir / "f.npy");
  EXPECT_TRUE(f.fortran_order);
  const auto fv = f.to_double("f");
  for (std::size_t i = 0; i < 24; ++i) {
    EXPECT_EQ(u[i], static_cast<float>(i));
    EXPECT_EQ(fv[i], static_cast<double>(i));  // C order after the transpose
  }
  EXPECT_THROW(read_npy(dir.dir / "nan.npy").to_float("nan"), InputError);
}

TEST(Npy, RefusesTruncatedAndHostileHeaders) {
  test::TempDir dir;
  const std::vector<float> v(6, 1.0f);
  const std::vector<std::size_t> shape{2, 3};
  write_npy(dir.dir / "a.npy", std::span<const float>(v), shape);
  std::ifstream in(dir.dir / "a.npy", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(dir.dir / "short.npy", std::ios::binary) << bytes.substr(0, bytes.size() - 4);
  EXPECT_THROW(read_npy(dir.dir / "short.npy"), InputError);
  std::string huge = bytes;
  huge.replace(huge.find("(2, 3)"), 6, "(99999999999, 99999999999)");
  std::ofstream(dir.dir / "huge.npy", std::ios::binary) << huge;
  EXPECT_THROW(read_npy(dir.dir / "huge.npy"), InputError);
  std::ofstream(dir.dir / "junk.npy", std::ios::binary) << "not numpy at all";
  EXPECT_THROW(read_npy(dir.dir / "junk.npy"), InputError);
}

TEST(Npy, NonFiniteAndOutOfRangeValuesNameTheFileAndIndex) {
  test::TempDir dir;
  std::vector<double> v(2 * 3, 1.0);
  v[1 * 3 + 2] = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::size_t> shape{2, 3};
  write_npy(dir.dir / "nan.npy", std::span<const double>(v), shape);
  const NpyArray a = read_npy(dir.dir / "nan.npy");
  std::string msg;
  try {
    (void)a.to_float("projections");
  } catch (const InputError& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("projections"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nan.npy"), std::string::npos) << msg;
  EXPECT_NE(msg.find("index [1, 2]"), std::string::npos) << msg;
  v[5] = 1e300;  // finite as double, not as float
  write_npy(dir.dir / "big.npy", std::span<const double>(v.data(), 6), shape);
  v[5] = 1.0;
  EXPECT_THROW(read_npy(dir.dir / "big.npy").to_float("x"), InputError);
  EXPECT_THROW(read_npy(dir.dir / "big.npy").to_complex_float("x"), InputError);
  // A folder and a device are refused by name, not read as garbage sizes.
  EXPECT_THROW(read_npy(dir.dir), InputError);
  EXPECT_THROW(read_npy("/dev/zero"), InputError);
  EXPECT_THROW(read_npy(dir.dir / "missing.npy"), InputError);
}

}  // namespace
}  // namespace tomo
