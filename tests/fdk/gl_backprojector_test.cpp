// The GL back-projections' own checks beyond the backend contract (backprojector_contract.hpp):
// z-slabs and launch sizes (gl-compute: SSBO slabs; gl: raster into 3D-texture slabs) do not
// change the result, and volumes larger than one shader storage block. Never skipped.
#include <gtest/gtest.h>

#include <algorithm>

#include "compute/core/registry.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/simulate.hpp"
#include "renderer/gl/gl.hpp"
#include "tests/fdk/small_stack.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;
using namespace tomo::fdk;

namespace {

const ProjectionStack& data() { return tomo::fdk::test::small_stack(); }

VolumeF run(const std::string& backend, const Grid3& grid, Interpolation interp) {
  return tomo::fdk::test::backproject_small_stack(backend, grid, interp);
}

}  // namespace

class FdkGl : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { (void)tomo::test::gl_context(); }  // validation on; no context = failure
};

TEST(FdkGlRaster, SlabsAndLaunchSizesDoNotChangeTheResult) {
  (void)tomo::test::gl_context();
  const Grid3 grid = rabbit_grid(32);
  const VolumeF one = run("gl", grid, Interpolation::exact);
  auto op = BackendRegistry<ConeBeamBackprojector>::instance().create("gl");
  BackprojectorOptions o;
  o.interpolation = Interpolation::exact;
  o.device_memory_mb = 32.0 * 32 * 4 * 5 / 1048576.0;  // 5-slice slabs: 6 full + one of 2
  o.projections_per_launch = 9;
  op->configure(o);
  const VolumeF slabs = reconstruct(*op, grid, data(), 16);
  const double err = relative_l2(slabs.data, one.data);
  std::printf("gl raster, 7 slabs and 9 projections per draw vs one slab: relative L2 %.3e\n", err);
  EXPECT_LE(err, 1e-6);  // only the grouping of the fp32 batch sums differs
}

TEST(FdkGlCompute, SlabsAndLaunchSizesDoNotChangeTheResult) {
  (void)tomo::test::gl_context();
  const Grid3 grid = rabbit_grid(32);
  const VolumeF ref = run("cpu", grid, Interpolation::exact);
  const VolumeF one = run("gl-compute", grid, Interpolation::exact);
  auto op = BackendRegistry<ConeBeamBackprojector>::instance().create("gl-compute");
  BackprojectorOptions o;
  o.interpolation = Interpolation::exact;
  o.device_memory_mb = 32.0 * 32 * 4 * 5 / 1048576.0;  // 5-slice SSBO slabs: 6 full + one of 2
  o.projections_per_launch = 9;
  op->configure(o);
  const VolumeF slabs = reconstruct(*op, grid, data(), 16);
  const double err = relative_l2(slabs.data, one.data), err_cpu = relative_l2(slabs.data, ref.data);
  std::printf("gl-compute, 7 slabs and 9 projections per dispatch: vs one slab %.3e, vs cpu %.3e\n", err, err_cpu);
  EXPECT_LE(err, 1e-6);  // only the grouping of the fp32 batch sums differs
  EXPECT_LE(err_cpu, 1e-4);
}

// A volume of more bytes than one shader storage block may hold (a 1024³ volume is 4 GiB; NVIDIA and
// llvmpipe address far less through one SSBO binding): every z-slice must still be right.
TEST_P(FdkGl, VolumeLargerThanOneStorageBlockMatchesCpu) {
  GLint64 max_block = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_block);
  ASSERT_GT(max_block, 0);
  const int n = 256;
  const std::size_t slice = std::size_t{n} * n * sizeof(float);
  const std::int64_t budget = std::min<std::int64_t>(max_block, std::int64_t{512} << 20);  // also the gl slab size
  const int nz = static_cast<int>(budget / static_cast<std::int64_t>(slice)) + 3;
  const Grid3 grid = Grid3::centred({n, n, nz}, {256.0 / n, 256.0 / n, 256.0 / n});
  ProjectionStack p = data();  // 2 views keep llvmpipe fast
  p.matrices.resize(2);
  p.pixels.resize(p.image_size() * 2);
  auto reg = [&](const std::string& b) {
    auto op = BackendRegistry<ConeBeamBackprojector>::instance().create(b);
    BackprojectorOptions o;
    o.interpolation = Interpolation::exact;
    op->configure(o);
    return reconstruct(*op, grid, p, 2);
  };
  const VolumeF ref = reg("cpu");
  const VolumeF v = reg(GetParam());
  std::printf("%s, %d-slice volume of %.0f MiB (max storage block %.0f MiB) vs cpu: relative L2 %.3e\n",
              GetParam().c_str(), nz, double(slice) * nz / 1048576.0, double(max_block) / 1048576.0,
              relative_l2(v.data, ref.data));
  EXPECT_LE(relative_l2(v.data, ref.data), 1e-4);
  // The last slices (beyond one block) on their own: a dropped or misplaced slab cannot hide there.
  const std::size_t tail = slice / sizeof(float) * 3;
  const std::vector<float> vt(v.data.end() - static_cast<std::ptrdiff_t>(tail), v.data.end());
  const std::vector<float> rt(ref.data.end() - static_cast<std::ptrdiff_t>(tail), ref.data.end());
  EXPECT_LE(relative_l2(vt, rt), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Backends, FdkGl, ::testing::Values("gl-compute", "gl"), [](const auto& info) {
  return info.param == "gl" ? std::string("Raster") : std::string("Compute");
});
