// The glpet cuda backend with CUDA-GL interop (label gpu; docs/glpet.md §3): its vectors as GL
// buffers mapped into CUDA ("on") against plain device memory ("off") and the cpu reference
// (≤ 1e-4 relative L2, as cuda_projector_gpu_test.cpp); an atlas written by a cuda forward read through
// GL equals its download bit for bit; GL writes are seen by the next cuda call; and the
// viewer's display copy (copy_to_gl) takes the GPU path for interop vectors. Skips without a
// CUDA device; needs a GL context on it (the EGL device platform on the GPU machine).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "cuda/core/device.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "renderer/gl/objects.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "compute/glpet/crosscheck.hpp"
#include "renderer/glpet/gl_display_copy.hpp"
#include "compute/glpet/mlem.hpp"
#include "tests/glpet/small_system.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::glpet {
namespace {

SystemModel attenuating_two_pair_system() {
  auto sys = test::small_system(16, 2.0, 2, 16);
  ModulePair side{{test::plane_module(0, 1), test::plane_module(0, 1)}};
  side.modules[0].centre = {-40, 0, 0};
  side.modules[0].normal = {1, 0, 0};
  side.modules[0].axis_a = {0, 0, 1};
  side.modules[1].centre = {40, 0, 0};
  side.modules[1].normal = {-1, 0, 0};
  side.modules[1].axis_a = {0, 1, 0};
  side.modules[1].axis_t = {0, 0, 1};
  sys.scanner.pairs.push_back(side);
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 16; ++i) {
        const Vec3 c = sys.grid.centre(i, j, k);
        if (c[0] * c[0] + c[1] * c[1] < 13.0 * 13.0) sys.sigma_t.at(i, j, k) = 0.0096f;
      }
  return sys;
}

ProjectorOptions interop_options(const std::string& mode) {
  ProjectorOptions o;
  o.cuda_gl_interop = mode == "on" ? Use::on : Use::off;
  return o;
}

std::vector<float> test_activity(const SystemModel& sys) {
  std::vector<float> x(sys.voxel_count());
  for (std::size_t v = 0; v < x.size(); ++v) x[v] = float((v * 7919) % 13) / 13.0f;
  return x;
}

class GlpetInteropGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
    tomo::runtime_options().cuda_device = 0;
    const auto& info = tomo::test::gl_context().info();  // a CUDA machine without GL fails, not skips
    std::printf("GL: %s (CUDA device of the EGL device: %d)\n", info.summary().c_str(), info.cuda_device);
  }
  static std::unique_ptr<Projector> cuda(const SystemModel& sys, const char* interop) {
    auto op = BackendRegistry<Projector>::instance().create("cuda");
    op->configure(sys, interop_options(interop));
    return op;
  }
};

TEST_F(GlpetInteropGpu, OnAndOffMatchCpu) {
  for (const char* mode : {"on", "off"}) {
    const SystemModel sys = attenuating_two_pair_system();
    auto op = cuda(sys, mode);
    auto probe = op->make_lors();
    if (std::string(mode) == "on")
      EXPECT_NE(probe->gl_name(), 0u);
    else
      EXPECT_EQ(probe->gl_name(), 0u);
    VolumeF act(sys.grid, 0.0f);
    act.data = test_activity(sys);
    CpuProjector cpu;
    CrosscheckInput in = make_crosscheck_input(sys, act, cpu);
    in.options = interop_options(mode);
    auto fresh = BackendRegistry<Projector>::instance().create("cuda");
    const CrosscheckResult r = compare(cpu, *fresh, in);
    std::printf("interop %s: atlas %.3e back %.3e sens %.3e lines %.3e of %zu\n", mode, r.atlas_rel_l2, r.back_rel_l2,
                r.sens_rel_l2, r.line_diff_fraction, r.lines_compared);
    EXPECT_LE(r.atlas_rel_l2, 1e-4);
    EXPECT_LE(r.back_rel_l2, 1e-4);
    EXPECT_LE(r.sens_rel_l2, 1e-4);
    EXPECT_LE(r.line_diff_fraction, 1e-3);
  }
}

TEST_F(GlpetInteropGpu, MlemOnOffAndCpuAgree) {
  std::vector<float> truth;
  std::vector<float> y;
  std::vector<MlemResult> results;
  for (const char* mode : {"on", "off"}) {
    const SystemModel sys = attenuating_two_pair_system();
    if (y.empty()) {
      CpuProjector cpu;
      cpu.configure(sys);
      truth.assign(sys.voxel_count(), 0.0f);
      for (int k = 5; k < 10; ++k)
        for (int j = 6; j < 11; ++j)
          for (int i = 3; i < 8; ++i) truth[sys.grid.index(i, j, k)] = 100.0f;
      y = forward_host(cpu, truth);  // operator consistency only, not a physics test
      MlemOptions opt;
      opt.iterations = 5;
      results.push_back(run_mlem(cpu, y, {}, opt));
    }
    auto op = cuda(sys, mode);
    MlemOptions opt;
    opt.iterations = 5;
    int gl_iterates = 0;
    opt.on_iteration = [&](int, const BackendBuffer& x) {
      gl_iterates += x.gl_name() != 0;
      return true;
    };
    results.push_back(run_mlem(*op, y, {}, opt));
    EXPECT_EQ(gl_iterates, std::string(mode) == "on" ? 5 : 0) << mode;
  }
  const double on_cpu = relative_l2(results[1].x, results[0].x), off_cpu = relative_l2(results[2].x, results[0].x);
  const double on_off = relative_l2(results[1].x, results[2].x);
  std::printf("ML-EM 5 it.: on vs cpu %.3e, off vs cpu %.3e, on vs off %.3e\n", on_cpu, off_cpu, on_off);
  EXPECT_LE(on_cpu, 1e-4);
  EXPECT_LE(off_cpu, 1e-4);
  EXPECT_LE(on_off, 1e-5);  // same kernels; only the order of float atomics differs
  EXPECT_LE(relative_l2(results[1].sensitivity, results[0].sensitivity), 1e-4);
}

// A cuda forward writes the atlas into its GL buffer: GL reads exactly what download() returns.
// GL then writes x into the image's GL buffer and the next cuda forward sees it.
TEST_F(GlpetInteropGpu, CudaAndGlSeeTheSameMemory) {
  const SystemModel sys = attenuating_two_pair_system();
  auto op = cuda(sys, "on");
  CpuProjector cpu;
  cpu.configure(sys);
  const std::vector<float> x = test_activity(sys);
  auto bx = op->make_image(), by = op->make_lors();
  ASSERT_NE(bx->gl_name(), 0u);
  ASSERT_NE(by->gl_name(), 0u);
  bx->upload(x);
  op->forward(*bx, *by);
  const std::vector<float> down = download(*by);
  tomo::test::gl_context();
  gl::Buffer view = gl::Buffer::wrap(by->gl_name(), by->size() * sizeof(float));
  const std::vector<float> via_gl = view.read<float>();
  view.release();  // the backend owns the name
  ASSERT_EQ(via_gl.size(), down.size());
  std::size_t differ = 0;
  double sum = 0;
  for (std::size_t l = 0; l < down.size(); ++l) {
    differ += via_gl[l] != down[l];
    sum += down[l];
  }
  EXPECT_EQ(differ, 0u);
  EXPECT_GT(sum, 0.0);
  const double e = relative_l2(via_gl, forward_host(cpu, x));
  std::printf("atlas read through GL vs cpu: %.3e (%zu LORs, sum %.6g)\n", e, down.size(), sum);
  EXPECT_LE(e, 1e-4);

  // GL writes 2x into the image buffer (no CUDA upload): the forward is linear, so ỹ doubles.
  std::vector<float> x2(x.size());
  for (std::size_t v = 0; v < x.size(); ++v) x2[v] = 2.0f * x[v];
  gl::Buffer xv = gl::Buffer::wrap(bx->gl_name(), bx->size() * sizeof(float));
  xv.upload(x2.data(), x2.size() * sizeof(float));
  xv.release();
  op->forward(*bx, *by);
  const std::vector<float> twice = download(*by);
  const double e2 = relative_l2(twice, forward_host(cpu, x2));
  std::printf("forward of a GL-written image vs cpu: %.3e\n", e2);
  EXPECT_LE(e2, 1e-4);
}

// The viewer's display copy: GPU-side for interop vectors, through the host for plain ones;
// the display buffer holds the downloaded values exactly either way.
TEST_F(GlpetInteropGpu, DisplayCopyOfCudaVectors) {
  for (const char* mode : {"on", "off"}) {
    const SystemModel sys = attenuating_two_pair_system();
    auto op = cuda(sys, mode);
    auto bx = op->make_image(), by = op->make_lors();
    bx->upload(test_activity(sys));
    op->forward(*bx, *by);
    tomo::test::gl_context();
    gl::Buffer display(by->size() * sizeof(float));
    display.clear_zero();
    const CopyPath path = copy_to_gl(*by, display);
    EXPECT_EQ(path, std::string(mode) == "on" ? CopyPath::Gpu : CopyPath::Host) << mode;
    EXPECT_EQ(display.read<float>(), download(*by)) << mode;
  }
}

}  // namespace
}  // namespace tomo::glpet
