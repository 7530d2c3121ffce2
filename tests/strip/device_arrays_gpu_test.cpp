// strip's operator on caller-owned device memory (cuda/strip/device_arrays.hpp, the Python
// module's path for CuPy/PyTorch arrays; label gpu): an adapter over the registered cuda backend,
// so forward, back and the EM step equal the backend's own calls (bit for bit where two runs of
// the backend agree bit for bit; its float atomics may add in another order); A x and Aᵀ w over
// device events equal the double walk of kernel_math.hpp (the cpu backend's) within 5e-5
// relative L2 (float: ~2e-6, plus a pixel on an ellipse's edge that float puts in or out, ≤ 6e-4
// of an event), one EM step and three ML-EM iterations equal the cpu backend's within 1e-4 / 1e-3.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/strip/mlem.hpp"
#include "compute/strip/simulator.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/strip/device_arrays.hpp"

namespace tomo::strip {
namespace {

struct StripScene {
  StripGeometry g = StripGeometry::covering(100.0, 200.0, 5.0);
  Resolution res{10.0, 40.0};
  std::vector<Event> events;
  StripScene() {
    events = simulate_point(g, res, 20.0, -25.0, 6000, 3);
    const auto more = simulate_point(g, res, -30.0, 40.0, 6000, 4);
    events.insert(events.end(), more.begin(), more.end());
    events.push_back({5000.f, 5000.f, 0.f});  // z̃ = 5 m: far off the grid, no pixel
  }
};

// f(i, P) over the event's ellipse, row by row in double (as python/src/strip.cpp's visit).
template <class F>
void visit(const StripScene& s, const Event& ev, F&& f) {
  const auto kp = make_kernel_params<double>(s.g.R, s.res.sigma_z, s.res.sigma_dl, 3.0);
  const auto grid = s.g.grid<double>();
  const auto fr = make_frame<double>(ev.z_u, ev.z_d, ev.dl, kp);
  const PixelBox b = pixel_box(fr, grid);
  for (int j = b.j0; j <= b.j1; ++j) {
    const auto row = make_row(fr, kp, grid.y0 + j * grid.py - fr.y);
    if (row.b1_half < 0.0) continue;
    const double zc = fr.z + row.dy * fr.tan;
    const int k0 = std::max(b.k0, int(std::ceil((zc - row.b1_half - grid.z0) / grid.pz)));
    const int k1 = std::min(b.k1, int(std::floor((zc + row.b1_half - grid.z0) / grid.pz)));
    for (int k = k0; k <= k1; ++k)
      f(std::size_t(j) * grid.nz + k, kernel_row_value(row, kp, grid.z0 + k * grid.pz - fr.z - row.dy * fr.tan));
  }
}

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

std::unique_ptr<ListModeProjector> make_cuda(const StripScene& s, const ProjectorOptions& o = {}) {
  auto op = BackendRegistry<ListModeProjector>::instance().create("cuda");
  op->configure(s.g, s.res, o);
  return op;
}

// `got` from the adapter against two runs of the backend's own call: bit for bit where those two
// agree; else (float atomics in another order) within 1e-6 relative L2.
void expect_backend_result(const std::vector<double>& got, const std::vector<double>& ref_a,
                           const std::vector<double>& ref_b, const char* what) {
  ASSERT_EQ(got.size(), ref_a.size()) << what;
  const double e = relative_l2(got, ref_a), spread = relative_l2(ref_b, ref_a);
  std::printf("strip device arrays vs cuda backend, %s: rel. L2 %.3g (backend run to run %.3g)\n", what, e, spread);
  if (ref_a == ref_b)
    EXPECT_EQ(got, ref_a) << what;
  else
    EXPECT_LT(e, 1e-6) << what;
}

TEST(StripDeviceArrays, ForwardAndBackEqualTheDoubleWalk) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const StripScene s;
  const std::size_t n = s.events.size(), px = s.g.pixel_count();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u01(0.1f, 1.0f);
  std::vector<float> x(px), w(n);
  for (float& e : x) e = u01(rng);
  for (float& e : w) e = u01(rng);
  std::vector<double> y_ref(n, 0.0), b_ref(px, 0.0);
  for (std::size_t e = 0; e < n; ++e)
    visit(s, s.events[e], [&](std::size_t i, double p) {
      y_ref[e] += p * x[i];
      b_ref[i] += p * w[e];
    });
  cuda::DeviceBuffer<float> ev_d(std::span<const float>(reinterpret_cast<const float*>(s.events.data()), 3 * n));
  cuda::DeviceBuffer<float> x_d{std::span<const float>(x)}, w_d{std::span<const float>(w)}, y_d(n), b_d(px);
  b_d.upload(std::vector<float>(px, 7.0f));  // overwritten, not added to
  auto op = make_cuda(s);
  DeviceArrayProjector p(*op, s.g, 0.0, {}, tomo::runtime_options().cuda_device);
  p.forward(x_d.data(), ev_d.data(), n, y_d.data());
  p.back(w_d.data(), ev_d.data(), n, b_d.data());
  const auto y = widen(y_d.to_host()), b = widen(b_d.to_host());
  const double e_fwd = relative_l2(y, y_ref), e_back = relative_l2(b, b_ref);
  std::printf("strip device arrays: %zu events, forward rel. L2 vs double %.3g, back %.3g\n", n, e_fwd, e_back);
  EXPECT_LT(e_fwd, 5e-5);
  EXPECT_LT(e_back, 5e-5);
  EXPECT_EQ(y.back(), 0.0);  // the event off the grid
}

TEST(StripDeviceArrays, EmStepsEqualTheCpuBackend) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const StripScene s;
  const std::size_t px = s.g.pixel_count();
  auto cpu = BackendRegistry<ListModeProjector>::instance().create("cpu");
  cpu->configure(s.g, s.res, {});
  cpu->set_events(s.events);
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> u01(0.1, 1.0);
  std::vector<double> x(px);
  for (double& e : x) e = u01(rng);
  cpu->set_image(x);
  cpu->iterate();
  const std::vector<double> step_ref = cpu->image();
  const std::vector<double> rp_ref = run_mlem(*cpu, px, 3);
  // ρ as a run computes it: the sensitivity cut and the field of view (strip.fov_mask).
  const std::vector<std::uint8_t> outside = outside_field_of_view(s.g);
  const std::vector<double> rho_ref = rho_from_rho_prime(rp_ref, sensitivity_image(s.g), 0.05, outside);

  for (const Granularity gran : {Granularity::warp, Granularity::thread}) {
    ProjectorOptions o;
    o.granularity = gran;
    auto op = make_cuda(s, o);
    DeviceArrayProjector p(*op, s.g, 0.05, outside, tomo::runtime_options().cuda_device);
    // Events from the GPU (device-to-device) for the step, from the host for the ML-EM run.
    cuda::DeviceBuffer<float> ev_d(
        std::span<const float>(reinterpret_cast<const float*>(s.events.data()), 3 * s.events.size()));
    p.set_events(ev_d.data(), s.events.size());
    ASSERT_EQ(p.events(), s.events.size());
    const std::vector<float> xf(x.begin(), x.end());
    cuda::DeviceBuffer<float> img{std::span<const float>(xf)}, rho(px);
    p.iterate(img.data(), img.data());  // in place
    const double e_step = relative_l2(widen(img.to_host()), step_ref);
    op->set_events(s.events);
    const auto back = p.events_to_host();
    ASSERT_EQ(back.size(), s.events.size());
    EXPECT_EQ(back[7].z_u, s.events[7].z_u);
    p.fill_ones(img.data());
    for (int t = 0; t < 3; ++t) p.iterate(img.data(), img.data());
    p.rho(img.data(), rho.data());
    const double e_rp = relative_l2(widen(img.to_host()), rp_ref), e_rho = relative_l2(widen(rho.to_host()), rho_ref);
    std::printf("strip device arrays (%s): EM step rel. L2 vs cpu %.3g; 3 ML-EM iterations rho' %.3g, rho %.3g\n",
                to_string(gran).c_str(), e_step, e_rp, e_rho);
    EXPECT_LT(e_step, 1e-4);
    EXPECT_LT(e_rp, 1e-3);
    EXPECT_LT(e_rho, 1e-3);
  }
}

// The adapter and the backend's host calls: the same kernels and launch configuration.
TEST(StripDeviceArrays, ForwardBackAndEmStepEqualTheCudaBackend) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const StripScene s;
  const std::size_t n = s.events.size(), px = s.g.pixel_count();
  std::vector<double> x(px), w(n);
  for (std::size_t i = 0; i < px; ++i) x[i] = 0.5 + 0.1 * double(i % 11);
  for (std::size_t e = 0; e < n; ++e) w[e] = 0.25 + 0.5 * double(e % 7);
  for (const Granularity gran : {Granularity::warp, Granularity::thread}) {
    ProjectorOptions o;
    o.granularity = gran;
    std::vector<double> y_ref[2], b_ref[2], step_ref[2];
    for (int r = 0; r < 2; ++r) {
      auto ref = make_cuda(s, o);
      ref->set_events(s.events);
      y_ref[r] = ref->forward(x);
      b_ref[r] = ref->back(w);
      ref->set_image(x);
      ref->iterate();
      step_ref[r] = ref->image();
    }
    auto op = make_cuda(s, o);
    DeviceArrayProjector p(*op, s.g, 0.0, {}, tomo::runtime_options().cuda_device);
    cuda::DeviceBuffer<float> ev_d(std::span<const float>(reinterpret_cast<const float*>(s.events.data()), 3 * n));
    p.set_events(ev_d.data(), n);
    const std::vector<float> xf(x.begin(), x.end()), wf(w.begin(), w.end());
    cuda::DeviceBuffer<float> x_d{std::span<const float>(xf)}, w_d{std::span<const float>(wf)}, y_d(n), b_d(px), img(px);
    p.forward(x_d.data(), ev_d.data(), n, y_d.data());
    p.back(w_d.data(), ev_d.data(), n, b_d.data());
    p.iterate(x_d.data(), img.data());
    const std::string g = to_string(gran);
    expect_backend_result(widen(y_d.to_host()), y_ref[0], y_ref[1], (g + " forward").c_str());
    expect_backend_result(widen(b_d.to_host()), b_ref[0], b_ref[1], (g + " back").c_str());
    expect_backend_result(widen(img.to_host()), step_ref[0], step_ref[1], (g + " EM step").c_str());
  }
}

}  // namespace
}  // namespace tomo::strip
