// safir's forward/back on caller-owned device memory (cuda/safir/device_arrays.hpp, the Python
// module's path for CuPy/PyTorch arrays; label gpu): equal to the cpu (double) operator on the
// same events, in event order (label-0 events, outside the box, give 0), within 1e-4 relative L2
// (fp32 slice walk, float atomics), and the back-projection overwrites the caller's image; events
// from device memory are checked (an id beyond the scanner: InputError naming the row) and sorted
// as host ones; ML-EM steps on the caller's image equal the cpu run_mlem within 1e-3 (halving too).
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/safir/mlem.hpp"
#include "compute/safir/projector.hpp"
#include "compute/safir/sensitivity.hpp"
#include "compute/safir/simulator.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/safir/device_arrays.hpp"

namespace tomo::safir {
namespace {

struct SmallScene {
  Scanner sc;
  ImageBox box;
  ListMode lm;
  explicit SmallScene(std::size_t events = 8000, std::uint64_t seed = 9, double hot = 3.0) {
    sc.rings = 8;
    sc.crystals = 64;
    box.n = {16, 16, 8};
    box.voxel_mm = 1.0;
    Phantom ph;
    ph.spheres = {{{1.0, -2.0, 0.0}, 4.0, hot}};
    ph.cylinder_radius_mm = 8.0;
    ph.cylinder_half_length_mm = 4.0;
    ph.background = 1.0;
    ph.mu_per_mm = 0.0;
    SimulationOptions so;
    so.events = events;
    so.seed = seed;
    lm = simulate(sc, ph, so);
  }
};

TEST(SafirDeviceArrays, ForwardAndBackEqualCpuInEventOrder) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  SmallScene scene(5000, 5, 1.0);
  const Scanner& sc = scene.sc;
  const ImageBox& box = scene.box;
  ListMode& lm = scene.lm;
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

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

TEST(SafirDeviceArrays, DeviceEventsAreCheckedAndProjectAsHostOnes) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const SmallScene s;
  const std::size_t n = s.lm.events.size();
  cuda::DeviceBuffer<Event> ev_d{std::span<const Event>(s.lm.events)};
  const auto* ids = reinterpret_cast<const std::uint32_t*>(ev_d.data());
  DeviceArrayProjector from_host(s.sc, s.box, s.lm.events, -1), from_device(s.sc, s.box, ids, n, -1);
  ASSERT_EQ(from_device.events(), n);
  const auto back = from_device.events_to_host();
  ASSERT_EQ(back.size(), n);
  EXPECT_EQ(back[n - 1].a, s.lm.events[n - 1].a);
  EXPECT_EQ(back[n - 1].b, s.lm.events[n - 1].b);
  cuda::DeviceBuffer<float> x{std::span<const float>(std::vector<float>(s.box.count(), 1.0f))}, y1(n), y2(n);
  from_host.forward(x.data(), y1.data(), 0.5f);
  from_device.forward(x.data(), y2.data(), 0.5f);
  EXPECT_EQ(y1.to_host(), y2.to_host());  // same sort, same kernels
  std::vector<Event> bad = s.lm.events;
  bad[5].b = s.sc.crystal_count();
  cuda::DeviceBuffer<Event> bad_d{std::span<const Event>(bad)};
  try {
    DeviceArrayProjector p(s.sc, s.box, reinterpret_cast<const std::uint32_t*>(bad_d.data()), n, -1);
    FAIL() << "an id beyond the scanner was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("row 5 names a crystal id not below the scanner's 512"), std::string::npos)
        << e.what();
  }
}

TEST(SafirDeviceArrays, MlemStepsEqualCpuRunMlem) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const SmallScene s;
  const std::size_t n = s.lm.events.size();
  auto cpu = BackendRegistry<ListModeOperator>::instance().create("cpu");
  cpu->configure(s.sc, s.box, {});
  const std::vector<double> sens = compute_sensitivity(*cpu, s.sc, s.box, SensitivityMode::symmetric);
  cpu->set_sensitivity(sens);
  cpu->set_events(s.lm.events);
  const double randoms = 0.01;
  cpu->set_randoms_per_lor(randoms);
  cuda::DeviceBuffer<Event> ev_d{std::span<const Event>(s.lm.events)};
  DeviceArrayProjector p(s.sc, s.box, reinterpret_cast<const std::uint32_t*>(ev_d.data()), n, -1);
  p.set_sensitivity(sens);
  for (const bool halve : {false, true}) {
    MlemOptions o;
    o.iterations = 4;
    o.halve_events = halve;
    run_mlem(*cpu, s.box.count(), 0, n, o);
    const std::vector<double> ref = cpu->image();
    cuda::DeviceBuffer<float> img(s.box.count());
    p.fill(img.data(), 1.0f);
    std::size_t active = n;
    for (int t = 1; t <= o.iterations; ++t) {
      p.iterate(img.data(), active, float(randoms));
      if (halve && t < o.iterations) active /= 2;
    }
    const double e = relative_l2(widen(img.to_host()), ref);
    std::printf("safir device arrays: 4 ML-EM iterations%s, rel. L2 vs cpu %.3g\n", halve ? " (halving)" : "", e);
    EXPECT_LT(e, 1e-3);
  }
  // forward/back after a halved window use every event again
  cuda::DeviceBuffer<float> x{std::span<const float>(std::vector<float>(s.box.count(), 1.0f))}, y(n);
  p.forward(x.data(), y.data(), float(randoms));  // the cpu operator still adds its randoms
  cpu->set_window(0, n);
  cpu->set_image(std::vector<double>(s.box.count(), 1.0));
  EXPECT_LT(relative_l2(widen(y.to_host()), cpu->forward()), 1e-4);
}

}  // namespace
}  // namespace tomo::safir
