// fdk's cuFFT callbacks compiled by NVRTC to LTO-IR (cuda/fdk/cufft_filter.hpp): NVRTC runs on
// the host, so the source is checked here without a GPU, and a later process reads it from the
// NVRTC disk cache instead of compiling it.
#include <gtest/gtest.h>

#ifdef TOMO_HAVE_CUDA
#include <string>
#include <vector>

#include "cuda/core/nvrtc.hpp"
#include "cuda/core/nvrtc_cache.hpp"
#include "cuda/fdk/cufft_filter.hpp"
#include "tests/support/env_var.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::fdk::test {
namespace {

TEST(FdkCufftCallbacks, CompileToLtoIrForSm90AndComeBackFromTheCache) {
  ::tomo::test::TempDir tmp("fdk-callbacks");
  ::tomo::test::NvrtcCacheIn cache(tmp.dir.string());
  const auto c0 = cuda::nvrtc_cache_counters();
  const std::vector<char> ir = cufft_callbacks_ltoir(9, 0);
  const auto c1 = cuda::nvrtc_cache_counters();
  EXPECT_EQ(c1.misses - c0.misses, 1);
  EXPECT_EQ(c1.stored - c0.stored, 1);
  ASSERT_GT(ir.size(), 1000u);
  EXPECT_EQ(std::string(ir.begin(), ir.end()).find(".version"), std::string::npos) << "PTX instead of LTO-IR";
  // The same bytes from the file, and the same as a compile without the cache.
  EXPECT_EQ(cufft_callbacks_ltoir(9, 0), ir);
  EXPECT_EQ(cuda::nvrtc_cache_counters().hits - c1.hits, 1);
  {
    ::tomo::test::EnvVar off("TOMORASTER_NVRTC_CACHE", "0");
    EXPECT_EQ(cufft_callbacks_ltoir(9, 0), ir);
  }
  // Another device gets its own entry.
  const std::vector<char> sm80 = cufft_callbacks_ltoir(8, 0);
  EXPECT_NE(sm80, ir);
  EXPECT_EQ(cuda::nvrtc_cache_counters().stored - c1.stored, 1);
}

}  // namespace
}  // namespace tomo::fdk::test
#endif
