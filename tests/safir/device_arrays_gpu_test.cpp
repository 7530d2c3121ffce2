// safir's operator on caller-owned device memory (cuda/safir/device_arrays.hpp, the Python
// module's path for CuPy/PyTorch arrays; label gpu): an adapter over the registered cuda backend,
// so its forward, back and ML-EM steps equal the backend's own calls (bit for bit where two runs
// of the backend agree bit for bit; its float atomics may add in another order); equal to the
// cpu (double) operator in event order within 1e-4 relative L2 (label-0 events give 0), the
// back-projection overwrites the caller's image, and events from device memory are checked (an
// id beyond the scanner: InputError naming the row).
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
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

std::unique_ptr<ListModeOperator> make(const char* name, const SmallScene& s) {
  auto op = BackendRegistry<ListModeOperator>::instance().create(name);
  op->configure(s.sc, s.box, {});
  return op;
}

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

// `got` from the adapter against two runs of the backend's own call: bit for bit where those two
// agree; else (float atomics in another order) within 1e-6 relative L2, as the two runs are.
void expect_backend_result(const std::vector<double>& got, const std::vector<double>& ref_a,
                           const std::vector<double>& ref_b, const char* what) {
  ASSERT_EQ(got.size(), ref_a.size()) << what;
  const double e = relative_l2(got, ref_a), spread = relative_l2(ref_b, ref_a);
  std::printf("safir device arrays vs cuda backend, %s: rel. L2 %.3g (backend run to run %.3g)\n", what, e, spread);
  if (ref_a == ref_b)
    EXPECT_EQ(got, ref_a) << what;
  else
    EXPECT_LT(e, 1e-6) << what;
}

TEST(SafirDeviceArrays, ForwardAndBackEqualCpuInEventOrder) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  SmallScene scene(5000, 5, 1.0);
  ListMode& lm = scene.lm;
  lm.events.push_back({0, 1});  // neighbours on one ring: a LOR that misses the box (label 0)
  const std::size_t n = lm.events.size();
  auto cpu = make("cpu", scene);
  cpu->set_events(lm.events);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u01(0.1, 1.0);
  std::vector<double> x(scene.box.count()), v(n);
  for (double& e : x) e = u01(rng);
  for (double& e : v) e = u01(rng);
  cpu->set_image(x);
  const std::vector<double> y_ref = cpu->forward(), b_ref = cpu->back(v);

  const std::vector<float> xf(x.begin(), x.end()), vf(v.begin(), v.end());
  cuda::DeviceBuffer<float> xd{std::span<const float>(xf)}, vd{std::span<const float>(vf)};
  cuda::DeviceBuffer<float> yd(n), bd(scene.box.count());
  bd.upload(std::vector<float>(scene.box.count(), 5.0f));  // overwritten, not added to
  auto gpu = make("cuda", scene);
  gpu->set_events(lm.events);
  DeviceArrayProjector p(*gpu, scene.box.count(), tomo::cuda::current_device());
  ASSERT_EQ(p.events(), n);
  p.forward(xd.data(), yd.data());
  p.back(vd.data(), bd.data());
  const std::vector<float> y = yd.to_host(), b = bd.to_host();
  const double e_fwd = relative_l2(widen(y), y_ref), e_back = relative_l2(widen(b), b_ref);
  std::printf("safir device arrays: forward rel. L2 vs cpu %.3g, back %.3g; last (missing) event %g (cpu %g)\n",
              e_fwd, e_back, y.back(), y_ref.back());
  EXPECT_LT(e_fwd, 1e-4);
  EXPECT_LT(e_back, 1e-4);
  EXPECT_EQ(y.back(), 0.0f);
}

// The adapter and the backend's host calls run the same kernels on the same sort: equal bits.
TEST(SafirDeviceArrays, ForwardBackAndMlemEqualTheCudaBackendBitForBit) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const SmallScene s;
  const std::size_t n = s.lm.events.size();
  std::vector<double> x(s.box.count()), v(n), sens;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.5 + 0.25 * double(i % 7);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.25 + 0.5 * double(i % 5);
  MlemOptions o;
  o.iterations = 4;
  o.halve_events = true;
  std::vector<double> y_ref[2], b_ref[2], f_ref[2];
  for (int r = 0; r < 2; ++r) {
    auto ref = make("cuda", s);
    if (sens.empty()) sens = compute_sensitivity(*ref, s.sc, s.box, SensitivityMode::symmetric);
    ref->set_sensitivity(sens);
    ref->set_randoms_per_lor(0.01);
    ref->set_events(s.lm.events);
    ref->set_image(x);
    y_ref[r] = ref->forward();
    b_ref[r] = ref->back(v);
    run_mlem(*ref, s.box.count(), 0, n, o);
    f_ref[r] = ref->image();
  }

  auto gpu = make("cuda", s);
  gpu->set_sensitivity(sens);
  gpu->set_randoms_per_lor(0.01);
  cuda::DeviceBuffer<Event> ev_d{std::span<const Event>(s.lm.events)};
  DeviceArrayProjector p(*gpu, s.box.count(), tomo::cuda::current_device());
  p.set_events(reinterpret_cast<const std::uint32_t*>(ev_d.data()), n);
  const std::vector<float> xf(x.begin(), x.end()), vf(v.begin(), v.end());
  cuda::DeviceBuffer<float> xd{std::span<const float>(xf)}, vd{std::span<const float>(vf)}, yd(n), bd(s.box.count()),
      img(s.box.count());
  p.forward(xd.data(), yd.data());
  p.back(vd.data(), bd.data());
  expect_backend_result(widen(yd.to_host()), y_ref[0], y_ref[1], "forward");
  expect_backend_result(widen(bd.to_host()), b_ref[0], b_ref[1], "back");
  p.fill(img.data(), 1.0f);
  std::size_t active = n;  // code sample 4's halving, as run_mlem
  for (int t = 1; t <= o.iterations; ++t) {
    p.iterate(img.data(), active);
    if (t < o.iterations && active > 1) active /= 2;
  }
  expect_backend_result(widen(img.to_host()), f_ref[0], f_ref[1], "4 ML-EM steps, halving");
}

TEST(SafirDeviceArrays, DeviceEventsAreCheckedAndProjectAsHostOnes) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const SmallScene s;
  const std::size_t n = s.lm.events.size();
  cuda::DeviceBuffer<Event> ev_d{std::span<const Event>(s.lm.events)};
  auto host_op = make("cuda", s), dev_op = make("cuda", s);
  host_op->set_events(s.lm.events);
  host_op->set_randoms_per_lor(0.5);
  dev_op->set_randoms_per_lor(0.5);
  DeviceArrayProjector from_host(*host_op, s.box.count(), tomo::cuda::current_device()), from_device(*dev_op, s.box.count(), tomo::cuda::current_device());
  from_device.set_events(reinterpret_cast<const std::uint32_t*>(ev_d.data()), n);
  ASSERT_EQ(from_device.events(), n);
  const auto back = from_device.events_to_host();
  ASSERT_EQ(back.size(), n);
  EXPECT_EQ(back[n - 1].a, s.lm.events[n - 1].a);
  EXPECT_EQ(back[n - 1].b, s.lm.events[n - 1].b);
  cuda::DeviceBuffer<float> x{std::span<const float>(std::vector<float>(s.box.count(), 1.0f))}, y1(n), y2(n);
  from_host.forward(x.data(), y1.data());
  from_device.forward(x.data(), y2.data());
  EXPECT_EQ(y1.to_host(), y2.to_host());  // same sort, same kernels
  std::vector<Event> bad(s.lm.events.begin(), s.lm.events.end());
  bad[5].b = s.sc.crystal_count();
  cuda::DeviceBuffer<Event> bad_d{std::span<const Event>(bad)};
  try {
    from_device.set_events(reinterpret_cast<const std::uint32_t*>(bad_d.data()), n);
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
  auto cpu = make("cpu", s);
  const std::vector<double> sens = compute_sensitivity(*cpu, s.sc, s.box, SensitivityMode::symmetric);
  cpu->set_sensitivity(sens);
  cpu->set_events(s.lm.events);
  const double randoms = 0.01;
  cpu->set_randoms_per_lor(randoms);
  auto gpu = make("cuda", s);
  gpu->set_sensitivity(sens);
  gpu->set_randoms_per_lor(randoms);
  cuda::DeviceBuffer<Event> ev_d{std::span<const Event>(s.lm.events)};
  DeviceArrayProjector p(*gpu, s.box.count(), tomo::cuda::current_device());
  p.set_events(reinterpret_cast<const std::uint32_t*>(ev_d.data()), n);
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
      p.iterate(img.data(), active);
      if (halve && t < o.iterations) active /= 2;
    }
    const double e = relative_l2(widen(img.to_host()), ref);
    std::printf("safir device arrays: 4 ML-EM iterations%s, rel. L2 vs cpu %.3g\n", halve ? " (halving)" : "", e);
    EXPECT_LT(e, 1e-3);
  }
  // forward/back after a halved window use every event again
  cuda::DeviceBuffer<float> x{std::span<const float>(std::vector<float>(s.box.count(), 1.0f))}, y(n);
  p.forward(x.data(), y.data());
  cpu->set_window(0, n);
  cpu->set_image(std::vector<double>(s.box.count(), 1.0));
  EXPECT_LT(relative_l2(widen(y.to_host()), cpu->forward()), 1e-4);
}

}  // namespace
}  // namespace tomo::safir
