// The cuda cone-beam projector beyond its contract (projector_contract.hpp; label gpu): the
// texture unit's trilinear filter within its stated tolerance of cpu, and the iterative
// algorithms with every vector on the GPU against the same steps on the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <random>

#include "compute/core/registry.hpp"
#include "compute/fdk/forward_projector.hpp"
#include "compute/fdk/iterative.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/simulate.hpp"
#include "cuda/core/device.hpp"

using namespace tomo;
using namespace tomo::fdk;

namespace {

// The Shepp–Logan head (80 mm) on 32³ voxels of 5 mm from 24 views of a 40×40 detector, and its
// closed-form line integrals.
struct Problem {
  ConeGeometry g;
  std::vector<float> b;
  VolumeF truth;
};

Problem problem() {
  CArmGeometry c;
  c.projections = 24;
  c.arc_deg = 300.0;
  c.sx = c.sy = 40;
  c.pixel_mm = 288.0 / 40;
  const Phantom ph = shepp_logan_3d(80.0, 0.02);
  Problem p{{rabbit_grid(32, 160.0), c.sx, c.sy, c.matrices()}, simulate_projections(ph, c), {}};
  p.truth = ph.voxelize(p.g.grid, 2);
  return p;
}

std::unique_ptr<ConeBeamProjector> make(const std::string& name, const ConeGeometry& g, ProjectorOptions o = {}) {
  auto op = BackendRegistry<ConeBeamProjector>::instance().create(name);
  op->configure(o);
  op->setup(g);
  return op;
}

}  // namespace

TEST(FdkCudaProjector, HardwareTrilinearStaysWithinItsTolerance) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = problem();
  auto cpu = make("cpu", p.g);
  auto hw = make("cuda", p.g, {.interpolation = Interpolation::hardware});
  std::vector<float> ref(p.b.size()), got(p.b.size());
  cpu->forward(p.truth.data, ref);
  hw->forward(p.truth.data, got);
  const double e = relative_l2(got, ref);
  std::printf("hardware trilinear vs cpu: relative L2 %.3g\n", e);
  EXPECT_LE(e, 2e-3);  // 8-bit weights: 2^-9 of a neighbour difference per sample at most
  EXPECT_GT(e, 0.0);   // it is the texture unit's filter, not the exact path
}

// B through the texture unit's bilinear filter (8-bit weights) against the cpu's B.
TEST(FdkCudaProjector, HardwareVoxelBackStaysWithinItsTolerance) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = problem();
  auto cpu = make("cpu", p.g);
  auto hw = make("cuda", p.g, {.interpolation = Interpolation::hardware});
  std::vector<float> ref(p.g.grid.count()), got(p.g.grid.count());
  cpu->back_voxel(p.b, ref);
  hw->back_voxel(p.b, got);
  const double e = relative_l2(got, ref);
  std::printf("hardware bilinear B vs cpu: relative L2 %.3g\n", e);
  EXPECT_LE(e, 2e-3);
  EXPECT_GT(e, 0.0);
}

// B's two gathers: on an untilted circular orbit u and t do not change along z (the kernel's
// z-invariant path); a tilted detector takes the general one. Both, exact and hardware, against cpu.
TEST(FdkCudaProjector, VoxelBackMatchesCpuWithAndWithoutTilt) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  for (const double tilt : {0.0, 4.0}) {
    CArmGeometry c;
    c.projections = 16;
    c.arc_deg = 300.0;
    c.sx = 40;
    c.sy = 36;
    c.pixel_mm = 288.0 / 40;
    c.roll_deg = tilt;
    c.pitch_deg = 0.5 * tilt;
    const ConeGeometry g{rabbit_grid(32, 160.0), c.sx, c.sy, c.matrices()};
    const Phantom ph = shepp_logan_3d(80.0, 0.02);
    const std::vector<float> b = simulate_projections(ph, c);
    auto cpu = make("cpu", g);
    std::vector<float> ref(g.grid.count()), got(g.grid.count());
    cpu->back_voxel(b, ref);
    for (const Interpolation m : {Interpolation::exact, Interpolation::hardware}) {
      auto op = make("cuda", g, {.interpolation = m});
      op->back_voxel(b, got);
      const double e = relative_l2(got, ref);
      std::printf("tilt %.1f deg, %s B vs cpu: relative L2 %.3g\n", tilt, to_string(m).c_str(), e);
      EXPECT_LE(e, m == Interpolation::exact ? 1e-5 : 2e-3) << "tilt " << tilt << ", " << to_string(m);
    }
  }
}

// The hardware B by the orbit's turns (views n + r·N/k in the k half-float channels of one texel,
// one fetch for all: voxel_back_turn.cuh): quarter turns on full circles of N = 4m views about a
// centred square grid, half turns where N is only even or the grid only centred with an even y
// count (odd x, a tilted detector and a z count that is no multiple of the thread's z-voxels
// included), neither on a short arc, an odd y count or a grid off the axis. Against the cpu's B
// with the hardware tolerance (2e-3, as above); and against the general hardware path on the same
// data (the views in two halves, which are subsets and so take it): the half floats' rounding
// (2^-12 of a sample) bounds that difference well below 2e-4 (1e-6 where both are the general path).
// And the stack times 3e5 and 1e-7 (beyond half floats' range without the packing's scale).
TEST(FdkCudaProjector, HardwareVoxelBackByTurnsOfTheOrbit) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  struct Case {
    const char* name;
    int views;
    double arc_deg, roll_deg, shift_mm;
    std::array<int, 3> dims;
    const char* path;  // what describe() names, or nullptr: the general path
  };
  const Case cases[] = {
      {"40 views, 32x32x20", 40, 351.0, 0.0, 0.0, {32, 32, 20}, "four views a texel by quarter turns"},
      {"36 views, tilted detector", 36, 350.0, 3.0, 0.0, {32, 32, 24}, "four views a texel by quarter turns"},
      {"42 views", 42, 360.0 * 41 / 42, 0.0, 0.0, {32, 32, 24}, "two views a texel by half turns"},
      {"40 views, 31x34x20", 40, 351.0, 0.0, 0.0, {31, 34, 20}, "two views a texel by half turns"},
      {"300 deg arc", 40, 300.0, 0.0, 0.0, {32, 32, 24}, nullptr},
      {"odd y count", 40, 351.0, 0.0, 0.0, {32, 33, 24}, nullptr},
      {"grid off the axis", 40, 351.0, 0.0, 2.0, {32, 32, 24}, nullptr},
  };
  const Phantom ph = shepp_logan_3d(80.0, 0.02);
  for (const Case& t : cases) {
    CArmGeometry c;
    c.projections = t.views;
    c.arc_deg = t.arc_deg;
    c.sx = 40;
    c.sy = 36;
    c.pixel_mm = 288.0 / 40;
    c.roll_deg = t.roll_deg;
    Grid3 grid = Grid3::centred(t.dims, {5.0, 5.0, 5.0});
    grid.origin_mm[0] += t.shift_mm;
    const ConeGeometry g{grid, c.sx, c.sy, c.matrices()};
    const std::vector<float> b = simulate_projections(ph, c);
    auto cpu = make("cpu", g);
    auto hw = make("cuda", g, {.interpolation = Interpolation::hardware});
    const std::string d = hw->describe();
    const bool turns = d.find(" turns of the orbit") != std::string::npos;
    EXPECT_EQ(turns, t.path != nullptr) << t.name << ": " << d;
    if (t.path) EXPECT_NE(d.find(t.path), std::string::npos) << t.name << ": " << d;
    std::vector<float> ref(g.grid.count()), got(g.grid.count());
    cpu->back_voxel(b, ref);
    hw->back_voxel(b, got);
    const double e = relative_l2(got, ref);
    EXPECT_LE(e, 2e-3) << t.name;
    // The general path: the two halves of the views as subsets, summed.
    const int half = t.views / 2;
    std::vector<int> lo(half), hi(t.views - half);
    for (int n = 0; n < t.views; ++n) (n < half ? lo[n] : hi[n - half]) = n;
    const std::size_t img = g.image_size();
    std::vector<float> part(g.grid.count()), general(g.grid.count(), 0.0f);
    for (const auto* list : {&lo, &hi}) {
      const std::vector<float> sub(b.begin() + (*list)[0] * img, b.begin() + ((*list).back() + 1) * img);
      hw->back_voxel(sub, part, *list);
      for (std::size_t k = 0; k < part.size(); ++k) general[k] += part[k];
    }
    const double dg = relative_l2(got, general);
    std::printf("%s: hardware B (%s) vs cpu: relative L2 %.3g; vs the general path %.3g\n", t.name,
                t.path ? t.path : "general", e, dg);
    EXPECT_LE(dg, t.path ? 2e-4 : 1e-6) << t.name;
    // Half floats end at 65504 and lose precision below 6.1e-5: the packing's power of two keeps
    // stacks of any scale (raw counts, tiny units) within the hardware tolerance.
    for (const float scale : {3e5f, 1e-7f}) {
      if (t.path == nullptr) break;
      std::vector<float> bs(b), rs(ref.size()), gs(ref.size());
      for (float& e : bs) e *= scale;
      cpu->back_voxel(bs, rs);
      hw->back_voxel(bs, gs);
      EXPECT_LE(relative_l2(gs, rs), 2e-3) << t.name << ", stack times " << scale;
    }
  }
}

// The exact transpose Aᵀ, computed in boxes of the volume, on the cases that stress how a box
// finds its rays: boxes cut by the grid's edges on every axis (odd sizes), a tilted detector,
// a source inside the grid's bounding region (corners behind the source: the whole detector is
// searched), more views than one pass holds, a view subset, and a grid of more boxes than the GPU
// holds at once (each box written by one block, no atomics). Against the cpu's double Aᵀ, and
// the adjoint identity with the cuda A.
TEST(FdkCudaProjector, ExactTransposeMatchesCpuOnHardCases) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  struct Case {
    const char* name;
    std::array<int, 3> dims;
    double voxel_mm;
    int views, sx, sy;
    double source_iso_mm, tilt_deg;
  };
  const Case cases[] = {
      {"odd grid, tilted", {37, 29, 23}, 5.0, 12, 40, 36, 785.0, 3.0},
      {"source inside the grid's box", {33, 33, 17}, 20.0, 10, 48, 30, 300.0, 0.0},
      {"100 views (two passes)", {24, 20, 18}, 6.0, 100, 32, 24, 785.0, 0.0},
      {"256x256x96 (one block a box)", {256, 256, 96}, 1.0, 6, 96, 40, 785.0, 1.0},
  };
  for (const Case& t : cases) {
    CArmGeometry c;
    c.projections = t.views;
    c.arc_deg = 330.0;
    c.sx = t.sx;
    c.sy = t.sy;
    c.source_iso_mm = t.source_iso_mm;
    c.source_det_mm = 1.5 * t.source_iso_mm;
    // The detector sees the grid's largest side at the isocentre.
    const double side = t.voxel_mm * std::max({t.dims[0], t.dims[1], t.dims[2]});
    c.pixel_mm = 1.6 * side * 1.5 / t.sx;
    c.roll_deg = t.tilt_deg;
    c.pitch_deg = 0.5 * t.tilt_deg;
    const ConeGeometry g{Grid3::centred(t.dims, {t.voxel_mm, t.voxel_mm, t.voxel_mm}), c.sx, c.sy, c.matrices()};
    const auto y = [&] {
      std::mt19937 rng(7);
      std::uniform_real_distribution<float> d(0.0f, 1.0f);
      std::vector<float> v(g.views() * g.image_size());
      for (float& e : v) e = d(rng);
      return v;
    }();
    auto cpu = make("cpu", g);
    auto cuda = make("cuda", g);
    std::vector<float> ref(g.grid.count()), got(g.grid.count()), ax(y.size());
    cpu->back(y, ref);
    cuda->back(y, got);
    cuda->forward(got, ax);  // ⟨A(Aᵀy), y⟩ = ‖Aᵀy‖²
    double lhs = 0, rhs = 0;
    for (std::size_t i = 0; i < y.size(); ++i) lhs += double(ax[i]) * y[i];
    for (float e : got) rhs += double(e) * e;
    const double e = relative_l2(got, ref);
    std::printf("%s: exact Aᵀ vs cpu relative L2 %.3g, <A Aᵀy, y> / |Aᵀy|² - 1 = %.3g\n", t.name, e,
                lhs / rhs - 1);
    EXPECT_GT(rhs, 0.0) << t.name;
    // The rays are walked in float (as A walks them): at index coordinates up to 256 a position
    // rounds by up to 1.5e-5 voxel, so the weights' error grows with the grid (measured 6.5e-6 at
    // 256, one H200).
    EXPECT_LE(e, t.dims[0] > 100 ? 2e-5 : 1e-5) << t.name;
    EXPECT_NEAR(lhs / rhs, 1.0, 1e-5) << t.name;
    const std::vector<int> views{t.views - 1, 0, t.views / 2};
    std::vector<float> sub(views.size() * g.image_size()), sub_ref(g.grid.count()), sub_got(g.grid.count());
    for (std::size_t k = 0; k < views.size(); ++k)
      std::copy_n(y.begin() + views[k] * g.image_size(), g.image_size(), sub.begin() + k * g.image_size());
    cpu->back(sub, sub_ref, views);
    cuda->back(sub, sub_got, views);
    EXPECT_LE(relative_l2(sub_got, sub_ref), 1e-5) << t.name << ", views " << views[0] << ", 0, " << views[2];
  }
}

TEST(FdkCudaProjector, ResidentAlgorithmsMatchTheHostSteps) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = problem();
  auto cuda = make("cuda", p.g);
  auto cpu = make("cpu", p.g);
  for (int c = 0; c < 5; ++c) {
    const Algorithm a = c < 4 ? std::array{Algorithm::sirt, Algorithm::os_sart, Algorithm::cgls, Algorithm::tv}[c]
                              : Algorithm::cgls;
    // The fifth: CGLS with B, as ASTRA's CGLS3D_CUDA.
    const IterativeOptions o{.algorithm = a, .iterations = 10, .subsets = 4,
                             .cgls_back = c < 4 ? CglsBack::exact : CglsBack::voxel};
    std::vector<double> res_dev, res_host;
    const VolumeF dev = reconstruct_iterative(*cuda, p.g, p.b, o, [&](int, double r) { res_dev.push_back(r); });
    // The host steps over the cpu projector: the reference the device path must reproduce.
    const VolumeF host = reconstruct_iterative(*cpu, p.g, p.b, o, [&](int, double r) { res_host.push_back(r); });
    const double e = relative_l2(dev.data, host.data);
    std::printf("%-8s device vs cpu: relative L2 %.3g, residual %.5g vs %.5g, NRMSE %.4f\n", to_string(a).c_str(), e,
                res_dev.back(), res_host.back(), phantom_error(dev, p.truth, fov_mask(p.g.grid, p.g.matrices, p.g.sx, p.g.sy)).nrmse);
    EXPECT_LE(e, 1e-4) << to_string(a);
    ASSERT_EQ(res_dev.size(), 10u);
    EXPECT_NEAR(res_dev.back(), res_host.back(), 1e-4 * res_host.back()) << to_string(a);
  }
}

TEST(FdkCudaProjector, DeviceStepsOnTheHostPathGiveTheSameVolume) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  // sirt() runs the host steps over the cuda projector's host interface: the resident path
  // (reconstruct_iterative) must agree with it.
  const Problem p = problem();
  auto cuda = make("cuda", p.g);
  const IterativeOptions o{.algorithm = Algorithm::sirt, .iterations = 5};
  const VolumeF resident = reconstruct_iterative(*cuda, p.g, p.b, o);
  const VolumeF host = sirt(*cuda, p.g, p.b, o, {});
  EXPECT_LE(relative_l2(resident.data, host.data), 1e-5);
}
