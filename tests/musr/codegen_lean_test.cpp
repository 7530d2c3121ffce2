// Round four's levers of the CUDA code generator (codegen_cuda.hpp, CudaLean): the BlockInfo
// tables of `head`, the code of `packs`, `tail` and `wide`. Their kernels are run on the host by
// kernel_emulation_test.cpp and compiled by NVRTC in codegen_cuda_test.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compute/core/log.hpp"
#include "compute/musr/codegen_cuda.hpp"
#include "tests/musr/gpu_test_data.hpp"

namespace tomo::musr::test {
namespace {

CudaCodegenOptions fast_float_v2() {
  CudaCodegenOptions o;
  o.single_precision = true;
  o.version = CudaKernelVersion::v2;
  return o;
}

// Round four's levers (CudaLean): with `head` every block's table entry is a BlockInfo whose
// fields are its run's, whose group ranges tile each run's groups in order, and whose parameter
// map is the run's; the other levers change the code, never the tables.
TEST(MusrCodegenLean, HeadBlockInfoTilesEachRunAndCarriesItsParameterMap) {
  FitData data = eq5_data(5, 30001);
  data.runs[2].t.resize(4099), data.runs[2].y.resize(4099), data.runs[2].sigma.resize(4099);  // 4·n + 3 bins
  CudaCodegenOptions o = fast_float_v2();
  o.step = true;
  const CudaSource plain = cuda_chi2_source(data, o);
  o.lean.head = true;
  const CudaSource head = cuda_chi2_source(data, o);
  EXPECT_EQ(plain.block_ints, 1);
  EXPECT_EQ(plain.np, 64);
  EXPECT_EQ(head.np, 24) << data.num_params << " parameters, rounded up to 8";
  ASSERT_GE(head.block_pm, head.slots - 1);
  EXPECT_EQ((56 + 4 * head.block_pm) % 16, 0) << "BlockInfo is a 16-byte multiple";
  EXPECT_EQ(head.block_ints * 4, 56 + 4 * head.block_pm);
  EXPECT_NE(head.text.find(str_cat("pm[", head.block_pm, "]; };")), std::string::npos);
  const CudaTables tp = cuda_tables(data, plain, cuda_bins_per_block_v2(data, 60));
  const CudaTables th = cuda_tables(data, head, cuda_bins_per_block_v2(data, 60));
  ASSERT_EQ(th.blocks, tp.blocks);
  ASSERT_EQ(th.block_run.size(), static_cast<std::size_t>(th.blocks * head.block_ints));
  std::vector<int> next_group(data.runs.size(), 0);
  for (int b = 0; b < th.blocks; ++b) {
    const char* e = reinterpret_cast<const char*>(th.block_run.data() + static_cast<std::size_t>(b * head.block_ints));
    long long offset = 0;
    double t0 = 0, dt = 0, scale = 0;
    int f[6];
    std::memcpy(&offset, e, 8), std::memcpy(&t0, e + 8, 8), std::memcpy(&dt, e + 16, 8), std::memcpy(&scale, e + 24, 8);
    std::memcpy(f, e + 32, sizeof f);
    const int r = f[5];
    ASSERT_EQ(r, tp.block_run[static_cast<std::size_t>(b)]) << b;
    const CudaRunInfo& R = tp.runs[static_cast<std::size_t>(r)];
    EXPECT_EQ(offset, R.offset);
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
    EXPECT_EQ(next_group[r], static_cast<int>((data.runs[r].t.size() + 3) / 4)) << "run " << r << "'s groups all covered";
  // Float step factors by float functions with `head`; the double kernels keep double ones.
  EXPECT_NE(head.text.find("= expf(real("), std::string::npos);
  EXPECT_NE(head.text.find("= cosf(real("), std::string::npos);
  EXPECT_EQ(plain.text.find("expf(real("), std::string::npos);
  o.single_precision = false;
  EXPECT_EQ(cuda_chi2_source(data, o).text.find("expf(real("), std::string::npos);
  // packs and tail: the same tables, other code.
  o = fast_float_v2();
  o.lean.packs = o.lean.tail = true;
  const CudaSource pt = cuda_chi2_source(data, o);
  EXPECT_EQ(cuda_tables(data, pt, cuda_bins_per_block_v2(data, 60)).block_run, tp.block_run);
  EXPECT_NE(pt.text.find("if (PACK * g + PACK <= count)"), std::string::npos);
  EXPECT_EQ(plain.text.find("if (PACK * g + PACK <= count)"), std::string::npos);
  EXPECT_NE(pt.text.find("blk < (int)gridDim.x"), std::string::npos);
  // wide: Packs of 8, runs padded to 8, the BlockInfo group ranges in Packs of 8.
  o = fast_float_v2();
  o.lean.head = o.lean.wide = true;
  const CudaSource wide = cuda_chi2_source(data, o);
  EXPECT_EQ(wide.group, 8);
  EXPECT_NE(wide.text.find("#define PACK 8"), std::string::npos);
  const CudaTables tw = cuda_tables(data, wide, cuda_bins_per_block_v2(data, 60));
  for (const CudaRunInfo& r : tw.runs) EXPECT_EQ(r.offset % 8, 0);
  int last_hi = 0;
  std::memcpy(&last_hi, reinterpret_cast<const char*>(tw.block_run.data() + static_cast<std::size_t>((tw.runs[2].first_block + tw.runs[2].blocks - 1) * wide.block_ints)) + 48, 4);
  EXPECT_EQ(last_hi, (4099 + 7) / 8) << "run 2's last block ends at its last Pack of 8";
  // v1 ignores the levers.
  o.version = CudaKernelVersion::v1;
  o.lean.head = true;
  EXPECT_FALSE(cuda_chi2_source(data, o).lean.any());
}

}  // namespace
}  // namespace tomo::musr::test
