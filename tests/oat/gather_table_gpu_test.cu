// The H_srtᵀ gather's azimuth table (srt_kernels.hpp kGatherTrigTable, PatchTrig::table in
// srt_gather.cuh) must give the forward's very patch positions: for every ring length n up to the
// table's and every patch j, patch_point with the table equals kernel_math shell_point bit for
// bit, so that the gather stays the exact transpose of H_srt. Longer rings compute as before.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/oat/srt_gather.cuh"
#include "cuda/oat/srt_kernels.hpp"

namespace tomo::oat::test {
namespace {

// One block per ring length n ≤ n_max + 8, its threads over j: out[3·(base(n) + j) + a] the
// table's position minus shell_point's, as bits (0 where equal).
__global__ void compare_kernel(ShellFrame<float> f, ShellCap<float> c, cuda_detail::GatherParams gp, int* out) {
  const int n = static_cast<int>(blockIdx.x) + 1;
  const ShellRing<float> r{n, 0.0f, 0.3826834f, 0.9238795f};
  for (int j = static_cast<int>(threadIdx.x); j < n; j += static_cast<int>(blockDim.x)) {
    float x, y, z, tx, ty, tz;
    shell_point(f, c, r, j, &x, &y, &z);
    cuda_detail::patch_point<cuda_detail::PatchTrig::table>(f, c, r, j, &tx, &ty, &tz, gp);
    int* o = out + 3 * (static_cast<long long>(n) * (n - 1) / 2 + j);
    o[0] = __float_as_int(x) ^ __float_as_int(tx);
    o[1] = __float_as_int(y) ^ __float_as_int(ty);
    o[2] = __float_as_int(z) ^ __float_as_int(tz);
  }
}

TEST(OatGatherTable, PatchPositionsEqualShellPointBitForBit) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const int table_n = cuda_detail::kTrigTableN, rings = table_n + 8;  // a few beyond the table
  tomo::cuda::DeviceBuffer<float2> table(cuda_detail::trig_table_size(table_n));
  cuda_detail::launch_trig_table(table.data(), table_n, nullptr);
  cuda_detail::GatherParams gp;
  gp.trig = table.data();
  gp.trig_n = table_n;
  // A transducer 65 mm from the centre on an oblique axis, a shell of 60 mm.
  const ShellFrame<float> f{1.5f,  -64.9f, 3.25f, -0.023f, 0.998f, -0.05f, 0.6f, 0.0538f,
                            0.798f, 0.7997f, 0.0f,  -0.6004f, 65.0f, 12.8f};
  const ShellCap<float> c{40, 60.0f, 0.2f, 0.2f};
  const std::size_t count = 3 * cuda_detail::trig_table_size(rings);
  tomo::cuda::DeviceBuffer<int> out(count);
  compare_kernel<<<rings, 128>>>(f, c, gp, out.data());
  TOMO_CUDA_CHECK_LAST();
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<int> bits = out.to_host();
  std::size_t differ = 0;
  for (int b : bits) differ += b != 0;
  EXPECT_EQ(differ, 0u) << "of " << count << " coordinates";
}

}  // namespace
}  // namespace tomo::oat::test
