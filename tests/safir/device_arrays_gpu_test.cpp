// safir's forward/back on caller-owned device memory (cuda/safir/device_arrays.hpp, the Python
// module's path for CuPy/PyTorch arrays; label gpu): equal to the cpu (double) operator on the
// same events, in event order (label-0 events, outside the box, give 0), within 1e-4 relative L2
// (fp32 slice walk, float atomics), and the back-projection overwrites the caller's image.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/safir/projector.hpp"
#include "compute/safir/simulator.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/safir/device_arrays.hpp"

namespace tomo::safir {
namespace {

TEST(SafirDeviceArrays, ForwardAndBackEqualCpuInEventOrder) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  Scanner sc;
  sc.rings = 8;
  sc.crystals = 64;
  ImageBox box;
  box.n = {16, 16, 8};
  box.voxel_mm = 1.0;
  Phantom ph;
  ph.spheres = {{{1.0, -2.0, 0.0}, 4.0, 1.0}};
  ph.cylinder_radius_mm = 8.0;
  ph.cylinder_half_length_mm = 4.0;
  ph.background = 1.0;
  ph.mu_per_mm = 0.0;
  SimulationOptions so;
  so.events = 5000;
  so.seed = 5;
  ListMode lm = simulate(sc, ph, so);
  lm.events.push_back({0, 1});  // neighbours on one ring: a LOR that misses the box (label 0)
  const std::size_t n = lm.events.size();
  auto cpu = BackendRegistry<ListModeOperator>::instance().create("cpu");
  cpu->configure(sc, box, {});
  cpu->set_events(lm.events);
  cpu->set_window(0, n);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u01(0.1, 1.0);
  std::vector<double> x(box.count()), v(n);
  for (double& e : x) e = u01(rng);
  for (double& e : v) e = u01(rng);
  cpu->set_image(x);
  const std::vector<double> y_ref = cpu->forward(), b_ref = cpu->back(v);

  const std::vector<float> xf(x.begin(), x.end()), vf(v.begin(), v.end());
  cuda::DeviceBuffer<float> xd{std::span<const float>(xf)}, vd{std::span<const float>(vf)};
  cuda::DeviceBuffer<float> yd(n), bd(box.count());
  bd.upload(std::vector<float>(box.count(), 5.0f));  // overwritten, not added to
  DeviceArrayProjector p(sc, box, lm.events, -1);
  ASSERT_EQ(p.events(), n);
  p.forward(xd.data(), yd.data(), 0.0f);
  p.back(vd.data(), bd.data());
  const std::vector<float> y = yd.to_host(), b = bd.to_host();
  const double e_fwd = relative_l2(std::vector<double>(y.begin(), y.end()), y_ref);
  const double e_back = relative_l2(std::vector<double>(b.begin(), b.end()), b_ref);
  std::printf("safir device arrays: forward rel. L2 vs cpu %.3g, back %.3g; last (missing) event %g (cpu %g)\n",
              e_fwd, e_back, y.back(), y_ref.back());
  EXPECT_LT(e_fwd, 1e-4);
  EXPECT_LT(e_back, 1e-4);
  EXPECT_EQ(y.back(), 0.0f);
}

}  // namespace
}  // namespace tomo::safir
