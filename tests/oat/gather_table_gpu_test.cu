// The H_srtᵀ gather's azimuth table (srt_kernels.hpp kTrigTableN, TablePoints in srt_gather.cuh)
// must give the forward's patch positions: for every ring length n up to the table's and every
// patch j, TablePoints equals kernel_math shell_point to float
// rounding at the shell's scale (a wrong patch or angle is off by a patch spacing, ~10⁵ times
// more). Bit equality is not a property of the source: nvcc contracts the inlined sincosf into
// the following multiply-adds differently from kernel to kernel, so the same expression may round
// differently in this test's kernel than in the product's forward (bench_oat checks the product:
// its paper-scene H_intᵀ image with the table equals the one without it). Longer rings compute as
// before.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
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
// table's position minus shell_point's (mm).
__global__ void compare_kernel(ShellFrame<float> f, ShellCap<float> c, cuda_detail::GatherParams gp, float* out) {
  const int n = static_cast<int>(blockIdx.x) + 1;
  const ShellRing<float> r{n, 0.0f, 0.3826834f, 0.9238795f};
  for (int j = static_cast<int>(threadIdx.x); j < n; j += static_cast<int>(blockDim.x)) {
    float x, y, z, tx, ty, tz;
    shell_point(f, c, r, j, &x, &y, &z);
    cuda_detail::TablePoints::at(f, c, r, j, &tx, &ty, &tz, gp);
    float* o = out + 3 * (static_cast<long long>(n) * (n - 1) / 2 + j);
    o[0] = tx - x;
    o[1] = ty - y;
    o[2] = tz - z;
  }
}

TEST(OatGatherTable, PatchPositionsEqualShellPointToFloatRounding) {
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
  tomo::cuda::DeviceBuffer<float> out(count);
  compare_kernel<<<rings, 128>>>(f, c, gp, out.data());
  TOMO_CUDA_CHECK_LAST();
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> d = out.to_host();
  // A few roundings of the largest term: the transducer's 65 mm plus the shell's 60 mm.
  const float tol = 8.0f * FLT_EPSILON * (65.0f + 60.0f);
  std::size_t differ = 0, beyond = 0;
  float worst = 0;
  for (float v : d) {
    differ += v != 0.0f;
    beyond += !(std::fabs(v) <= tol);
    worst = std::max(worst, std::fabs(v));
  }
  EXPECT_EQ(beyond, 0u) << "of " << count << " coordinates beyond " << tol << " mm (largest " << worst << " mm)";
  std::printf("table vs shell_point: %zu of %zu coordinates differ, by at most %.3g mm (bound %.3g)\n", differ,
              count, double(worst), double(tol));
}

}  // namespace
}  // namespace tomo::oat::test
