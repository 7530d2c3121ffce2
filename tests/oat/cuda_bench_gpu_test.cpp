// bench_oat's CUDA timings on a small scene (label gpu; skip without a device): every kernel and
// probe runs and reports a positive time, so the bench's table cannot lose a row to a launch error.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/core/device.hpp"
#include "cuda/oat/cuda_bench.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat::test {

TEST(OatCudaBench, EveryKernelAndProbeRuns) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const OatGeometry g = small_geometry(16, 1.0, 4, 8, 20.0, 5.0, EirKind::gaussian);
  const CudaFbpTimes f = time_cuda_fbp(g, random_positive(g.data_size(), 1), 1);
  EXPECT_GT(f.exact_ms, 0);
  EXPECT_GT(f.exact_ldg_ms, 0);
  EXPECT_GT(f.fetch_probe_ms, 0);
  EXPECT_GT(f.compute_probe_ms, 0);
  const CudaModelTimes m =
      time_cuda_model(g, ModelOptions{}, random_positive(g.grid.count(), 2), random_positive(g.data_size(), 3), 1);
  for (double t : {m.forward_exact_ms, m.forward_hardware_ms, m.adjoint_ms, m.probe_loads_ms, m.probe_texture_ms,
                   m.probe_atomics_ms})
    EXPECT_GT(t, 0);
}

}  // namespace tomo::oat::test
