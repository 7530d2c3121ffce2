// glpet cuda backend against the cpu reference (docs/glpet.md §5: ≤ 1e-4 relative L2,
// ≤ 1e-3 of the lines with another secondary detector). Skips without a CUDA device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/core/device.hpp"
#include "compute/core/registry.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "compute/glpet/crosscheck.hpp"
#include "compute/glpet/mlem.hpp"
#include "tests/glpet/small_system.hpp"

namespace tomo::glpet {
namespace {

SystemModel tilted_attenuating_system(int N) {
  auto sys = test::small_system(16, 2.0, 2, 16);
  sys.N = N;
  // A second, non-parallel pair to exercise the general geometry and the LOR offsets.
  ModulePair tilted{{test::plane_module(-40, 1), test::plane_module(40, -1)}};
  const double angle[2] = {0.25, -0.1};  // rotated about y, not parallel to each other
  for (int i = 0; i < 2; ++i) {
    Module& m = tilted.modules[i];
    const double s = i == 0 ? 1 : -1, a = angle[i];
    m.centre = {-40 * std::sin(a) * s, 0, -40 * std::cos(a) * s};
    m.normal = {std::sin(a) * s, 0, std::cos(a) * s};
    m.axis_a = {std::cos(a), 0, -std::sin(a)};
  }
  sys.scanner.pairs.push_back(tilted);
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 16; ++i) {
        const Vec3 c = sys.grid.centre(i, j, k);
        if (c[0] * c[0] + c[1] * c[1] < 13.0 * 13.0) sys.sigma_t.at(i, j, k) = 0.0096f;
        if (norm(sub(c, {5, 3, -4})) < 4) sys.sigma_t.at(i, j, k) = 0.02f;
      }
  return sys;
}

ProjectorOptions cache_options(const std::string& mode) {
  ProjectorOptions o;
  o.system_cache = mode == "on" ? Use::on : Use::off;
  return o;
}

// Both paths of the cuda backend: lines traced in every pass ("off") and the system matrix
// cached on the device ("on", docs/glpet.md §6).
class GlpetCudaGpu : public ::testing::TestWithParam<const char*> {};

TEST_P(GlpetCudaGpu, MatchesCpuReference) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  for (int N : {1, 3}) {
    const SystemModel sys = tilted_attenuating_system(N);
    VolumeF act(sys.grid, 0.0f);
    for (std::size_t v = 0; v < act.data.size(); ++v) act.data[v] = float((v * 7919) % 13) / 13.0f;
    CpuProjector cpu;
    auto cuda = BackendRegistry<Projector>::instance().create("cuda");
    CrosscheckInput in = make_crosscheck_input(sys, act, cpu);
    in.options = cache_options(GetParam());
    const CrosscheckResult r = compare(cpu, *cuda, in);
    std::printf("cache %s N=%d: atlas %.3e back %.3e sens %.3e lines %.3e of %zu\n", GetParam(), N, r.atlas_rel_l2, r.back_rel_l2,
                r.sens_rel_l2, r.line_diff_fraction, r.lines_compared);
    EXPECT_LE(r.atlas_rel_l2, 1e-4);
    EXPECT_LE(r.back_rel_l2, 1e-4);
    EXPECT_LE(r.sens_rel_l2, 1e-4);
    EXPECT_LE(r.line_diff_fraction, 1e-3);
    EXPECT_GT(r.lines_compared, 1000u);
  }
}

TEST_P(GlpetCudaGpu, MlemMatchesCpu) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const SystemModel sys = tilted_attenuating_system(1);
  CpuProjector cpu;
  cpu.configure(sys);
  std::vector<float> truth(sys.voxel_count(), 0.0f);
  for (int k = 5; k < 10; ++k)
    for (int j = 6; j < 11; ++j)
      for (int i = 3; i < 8; ++i) truth[sys.grid.index(i, j, k)] = 100.0f;
  const std::vector<float> y = forward_host(cpu, truth);  // operator consistency only, not a physics test
  auto cuda = BackendRegistry<Projector>::instance().create("cuda");
  cuda->configure(sys, cache_options(GetParam()));
  MlemOptions opt;
  opt.iterations = 5;
  const auto a = run_mlem(cpu, y, {}, opt), b = run_mlem(*cuda, y, {}, opt);
  EXPECT_LE(relative_l2(b.x, a.x), 1e-4);
  EXPECT_LE(relative_l2(b.sensitivity, a.sensitivity), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Cache, GlpetCudaGpu, ::testing::Values("off", "on"));

}  // namespace
}  // namespace tomo::glpet
