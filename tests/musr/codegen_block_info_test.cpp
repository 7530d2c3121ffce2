// The CUDA kernels' per-block table (codegen_cuda.hpp, BlockInfo) and the code around it: every
// block's entry carries its run's fields, group ranges that tile each run's Packs of 8 in order,
// and the run's parameter map. The kernels are run on the host by kernel_emulation_test.cpp and
// compiled by NVRTC in codegen_cuda_test.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compute/core/log.hpp"
#include "compute/musr/codegen_cuda.hpp"
#include "tests/musr/gpu_test_data.hpp"

namespace tomo::musr::test {
namespace {

TEST(MusrCodegenBlockInfo, TilesEachRunAndCarriesItsParameterMap) {
  FitData data = eq5_data(5, 30001);
  data.runs[2].t.resize(4099), data.runs[2].y.resize(4099), data.runs[2].sigma.resize(4099);  // 8·n + 3 bins
  const CudaSource src = cuda_chi2_source(data, true);
  EXPECT_EQ(src.np, 24) << data.num_params << " parameters, rounded up to 8";
  ASSERT_GE(src.block_pm, src.slots - 1);
  EXPECT_EQ((56 + 4 * src.block_pm) % 16, 0) << "BlockInfo is a 16-byte multiple";
  EXPECT_EQ(src.block_ints * 4, 56 + 4 * src.block_pm);
  EXPECT_NE(src.text.find(str_cat("pm[", src.block_pm, "]; };")), std::string::npos);
  EXPECT_NE(src.text.find("#define PACK 8"), std::string::npos);
  const CudaTables t = cuda_tables(data, src, cuda_bins_per_block(data, 60));
  ASSERT_EQ(t.block_run.size(), static_cast<std::size_t>(t.blocks * src.block_ints));
  std::vector<int> next_group(data.runs.size(), 0);
  for (int b = 0; b < t.blocks; ++b) {
    const char* e = reinterpret_cast<const char*>(t.block_run.data() + static_cast<std::size_t>(b * src.block_ints));
    long long offset = 0;
    double t0 = 0, dt = 0, scale = 0;
    int f[6];
    std::memcpy(&offset, e, 8), std::memcpy(&t0, e + 8, 8), std::memcpy(&dt, e + 16, 8), std::memcpy(&scale, e + 24, 8);
    std::memcpy(f, e + 32, sizeof f);
    const int r = f[5];
    ASSERT_GE(r, 0);
    ASSERT_LT(r, static_cast<int>(t.runs.size()));
    const CudaRunInfo& R = t.runs[static_cast<std::size_t>(r)];
    EXPECT_GE(b, R.first_block);
    EXPECT_LT(b, R.first_block + R.blocks);
    EXPECT_EQ(offset, R.offset);
    EXPECT_EQ(offset % 8, 0);
    EXPECT_EQ(t0, R.t0);
    EXPECT_EQ(dt, R.dt);
    EXPECT_EQ(scale, R.scale);
    EXPECT_EQ(f[0], R.count);
    EXPECT_EQ(f[1], R.kind);
    EXPECT_EQ(f[2], R.affine);
    EXPECT_EQ(f[3], next_group[static_cast<std::size_t>(r)]) << "block " << b << " starts where the last ended";
    EXPECT_GE(f[4], f[3]);
    next_group[static_cast<std::size_t>(r)] = f[4];
    const auto used = data.runs[static_cast<std::size_t>(r)].model.params_used();
    for (std::size_t k = 0; k < used.size(); ++k) {
      int pm = 0;
      std::memcpy(&pm, e + 56 + 4 * k, 4);
      EXPECT_EQ(pm, used[k]) << "run " << r << " slot " << k;
    }
  }
  for (std::size_t r = 0; r < data.runs.size(); ++r)
    EXPECT_EQ(next_group[r], static_cast<int>((data.runs[r].t.size() + 7) / 8)) << "run " << r << "'s Packs all covered";
  // Float step factors by float functions; the double kernels keep double ones.
  EXPECT_NE(src.text.find("= expf(real("), std::string::npos);
  EXPECT_NE(src.text.find("= cosf(real("), std::string::npos);
  EXPECT_EQ(cuda_chi2_source(data, false).text.find("expf(real("), std::string::npos);
  // Full Packs without the end test; the statistic summed over every block at once.
  EXPECT_NE(src.text.find("if (PACK * g + PACK <= count)"), std::string::npos);
  EXPECT_NE(src.text.find("blk < (int)gridDim.x"), std::string::npos);
}

}  // namespace
}  // namespace tomo::musr::test
