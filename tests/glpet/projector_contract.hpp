// The glpet::Projector contract every backend passes (included by projector_contract_test.cpp
// for cpu/gl/gl-compute and projector_contract_gpu_test.cpp for cuda): forward, back,
// back_ratio (+ sensitivity), sensitivity and the ML-EM update against the cpu reference, and
// the adjoint identity ⟨Ax, z⟩ = ⟨x, Aᵀz⟩ of the backend's own forward/back pair, and
// restrict_voxels (what the multi-device voxel split and the benches use).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "compute/glpet/cpu_projector.hpp"
#include "tests/glpet/gl_fixtures.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::glpet::test {

// Tolerances of each backend against the double-precision cpu reference.
struct ProjectorTolerance {
  double operator_rel;  // relative L2 of forward / back / back_ratio / sensitivity / update
  double adjoint;       // |⟨Ax, z⟩ / ⟨x, Aᵀz⟩ − 1|
};

inline ProjectorTolerance projector_tolerance(const std::string& backend) {
  // gl (raster): docs/glpet-gl.md §3 — rasterization edge rounding moves ≤ 1 % of the lines.
  // Its forward (blended points) and back (mip-reduced correspondence images) render the same
  // lines, so the pair stays adjoint to fp32 summation order (llvmpipe: 3e-9).
  if (backend == "gl") return {2e-2, 1e-5};
  // Double sums, one line set for both directions: adjoint to rounding.
  if (backend == "cpu") return {1e-4, 1e-6};
  // gl-compute, cuda: fp32 vs double within 1e-4 (docs/glpet.md §5); the adjoint differs only
  // by the fp32 summation order of the two directions (gl-compute on llvmpipe: 2e-9).
  return {1e-4, 1e-5};
}

// The one place a backend is made and configured for the contract (options go here).
inline std::unique_ptr<Projector> contract_projector(const std::string& backend, const SystemModel& sys) {
  return make_backend(backend, sys);
}

class GlpetProjectorContract : public tomo::test::BackendContract<Projector> {};

TEST_P(GlpetProjectorContract, ForwardBackAndSensitivityMatchCpu) {
  const ProjectorTolerance tol = projector_tolerance(backend());
  const SystemModel sys = attenuating_system();
  CpuProjector cpu;
  cpu.configure(sys);
  auto op = contract_projector(backend(), sys);
  const auto x = test_image(sys);
  const auto z = test_lors(sys);
  // Voxels with x_v = 0 are skipped by the forward passes: a third of them zero.
  std::vector<float> x0 = x;
  for (std::size_t v = 0; v < x0.size(); v += 3) x0[v] = 0.0f;
  const double e0 = rel_l2(forward_host(*op, x0), forward_host(cpu, x0));
  const auto y_ref = forward_host(cpu, x), y = forward_host(*op, x);
  const auto b_ref = back_host(cpu, z), b = back_host(*op, z);
  const auto s_ref = sensitivity_host(cpu), s = sensitivity_host(*op);
  const double ef = rel_l2(y, y_ref), eb = rel_l2(b, b_ref), es = rel_l2(s, s_ref);
  std::printf("%s vs cpu: forward with zero voxels %.3g, forward %.3g  back %.3g  sensitivity %.3g (relative L2)\n",
              backend().c_str(), e0, ef, eb, es);
  EXPECT_LT(e0, tol.operator_rel);
  EXPECT_LT(ef, tol.operator_rel);
  EXPECT_LT(eb, tol.operator_rel);
  EXPECT_LT(es, tol.operator_rel);
  // Not trivially zero: the forward projection carries the expected mass.
  double sum = 0;
  for (float v : y_ref) sum += v;
  EXPECT_GT(sum, 0.1);
}

TEST_P(GlpetProjectorContract, BackRatioAndUpdateMatchCpuOnThreePairs) {
  const ProjectorTolerance tol = projector_tolerance(backend());
  SystemModel sys = attenuating_system(8, 2, 8);
  sys.N = 2;  // two samples per voxel
  add_side_pair(sys);
  add_tilted_pair(sys);
  CpuProjector cpu;
  cpu.configure(sys);
  auto op = contract_projector(backend(), sys);
  const auto x = test_image(sys);
  const auto y_ref = forward_host(cpu, x), y = forward_host(*op, x);
  EXPECT_LT(rel_l2(y, y_ref), tol.operator_rel);
  // Measured data: a ±30 % modulation of ỹ (some LORs of ỹ are 0: those terms count 0).
  std::vector<float> meas(y_ref.size());
  for (std::size_t l = 0; l < meas.size(); ++l) meas[l] = float(y_ref[l] * (1.0 + 0.3 * std::sin(1.3 * double(l))));
  auto run = [&](Projector& p, std::vector<float>& b, std::vector<float>& s, std::vector<float>& xn) {
    auto by = p.make_lors(), bt = p.make_lors(), bb = p.make_image(), bs = p.make_image(), bx = p.make_image();
    by->upload(meas);
    bt->upload(y_ref);
    bx->upload(x);
    p.back_ratio(*by, *bt, *bb, bs.get());
    p.mlem_update(*bx, *bb, *bs);
    b = download(*bb);
    s = download(*bs);
    xn = download(*bx);
  };
  std::vector<float> b_ref, s_ref, x_ref, b, s, xn;
  run(cpu, b_ref, s_ref, x_ref);
  run(*op, b, s, xn);
  std::printf("%s vs cpu (3 pairs, N = 2): forward %.3g  ratio %.3g  sens %.3g  update %.3g\n", backend().c_str(),
              rel_l2(y, y_ref), rel_l2(b, b_ref), rel_l2(s, s_ref), rel_l2(xn, x_ref));
  EXPECT_LT(rel_l2(b, b_ref), tol.operator_rel);
  EXPECT_LT(rel_l2(s, s_ref), tol.operator_rel);
  EXPECT_LT(rel_l2(xn, x_ref), tol.operator_rel);
}

TEST_P(GlpetProjectorContract, AdjointIdentity) {
  SystemModel sys = water_cylinder_system();
  sys.N = 2;  // exercise several samples per voxel
  auto op = contract_projector(backend(), sys);
  const auto x = random_vector(sys.voxel_count(), 1), z = random_vector(sys.lor_count(), 2);
  const auto Ax = forward_host(*op, x), Atz = back_host(*op, z);
  const double lhs = tomo::test::inner<float, float>(Ax, z), rhs = tomo::test::inner<float, float>(x, Atz);
  std::printf("%s adjoint: <Ax, z> = %.9g, <x, A^T z> = %.9g, mismatch %.3g\n", backend().c_str(), lhs, rhs,
              tomo::test::adjoint_mismatch(lhs, rhs));
  EXPECT_GT(lhs, 0);
  EXPECT_LE(tomo::test::adjoint_mismatch(lhs, rhs), projector_tolerance(backend()).adjoint);
}

// The ring of the default scene, made small: 12 modules of 4 × 4 detectors, 18 pairs of
// non-parallel modules in every orientation around z, an attenuating cylinder along z.
TEST_P(GlpetProjectorContract, RingOfModulesMatchesCpuAndIsAdjoint) {
  const ProjectorTolerance tol = projector_tolerance(backend());
  // Side 2·30·tan 15° = 16.1 mm ≥ 4 × 4 mm: the modules do not overlap.
  const SystemModel sys = small_ring_system(12, 30, Grid3::centred({8, 8, 4}, {5, 5, 4}), {16, 16, 8});
  CpuProjector cpu;
  cpu.configure(sys);
  auto op = contract_projector(backend(), sys);
  const auto x = test_image(sys);
  const auto z = test_lors(sys);
  const auto y_ref = forward_host(cpu, x), y = forward_host(*op, x);
  const auto b_ref = back_host(cpu, z), b = back_host(*op, z);
  const auto s_ref = sensitivity_host(cpu), s = sensitivity_host(*op);
  const double lhs = tomo::test::inner<float, float>(y, z), rhs = tomo::test::inner<float, float>(x, b);
  std::printf("%s vs cpu (ring, 18 pairs): forward %.3g  back %.3g  sensitivity %.3g  adjoint mismatch %.3g\n",
              backend().c_str(), rel_l2(y, y_ref), rel_l2(b, b_ref), rel_l2(s, s_ref),
              tomo::test::adjoint_mismatch(lhs, rhs));
  EXPECT_LT(rel_l2(y, y_ref), tol.operator_rel);
  EXPECT_LT(rel_l2(b, b_ref), tol.operator_rel);
  EXPECT_LT(rel_l2(s, s_ref), tol.operator_rel);
  EXPECT_LE(tomo::test::adjoint_mismatch(lhs, rhs), tol.adjoint);
  // Every pair sees the centre: each atlas of the forward projection carries counts.
  for (std::size_t p = 0; p < sys.scanner.pairs.size(); ++p) {
    double sum = 0;
    for (std::size_t l = sys.scanner.lor_offset(p); l < sys.scanner.lor_offset(p + 1); ++l) sum += y_ref[l];
    EXPECT_GT(sum, 0) << "pair " << p;
  }
}

// restrict_voxels: over a voxel range the forward projection equals the cpu forward projection
// of the image zeroed outside it; the back-projection and the sensitivity write the range as
// the full ones have it and leave the other voxels as they were (the multi-device voxel split
// sums the ranks' images); count 0 restores the whole grid.
TEST_P(GlpetProjectorContract, VoxelRangeProjectsOnlyThoseVoxels) {
  const ProjectorTolerance tol = projector_tolerance(backend());
  SystemModel sys = attenuating_system(6, 2, 8);
  add_side_pair(sys);
  CpuProjector cpu;
  cpu.configure(sys);
  auto op = contract_projector(backend(), sys);
  const auto x = test_image(sys), z = test_lors(sys);
  const std::size_t first = 36 * 2, count = 36 * 3;  // z-slices 2..4 of 6³
  std::vector<float> masked(x.size(), 0.0f);
  std::copy(x.begin() + first, x.begin() + first + count, masked.begin() + first);
  const auto want_fwd = forward_host(cpu, masked), want_back = back_host(cpu, z), want_sens = sensitivity_host(cpu);
  ASSERT_TRUE(op->restrict_voxels(first, count)) << backend();
  const double ef = rel_l2(forward_host(*op, x), want_fwd);
  auto bz = op->make_lors(), bb = op->make_image(), bs = op->make_image();
  bz->upload(z);
  const std::vector<float> sentinel(sys.voxel_count(), -7.0f);
  bb->upload(sentinel);
  bs->upload(sentinel);
  op->back(*bz, *bb);
  op->sensitivity(*bs);
  const auto b = download(*bb), s = download(*bs);
  auto inside = [&](const std::vector<float>& v) {
    return std::vector<float>(v.begin() + std::ptrdiff_t(first), v.begin() + std::ptrdiff_t(first + count));
  };
  const double eb = rel_l2(inside(b), inside(want_back)), es = rel_l2(inside(s), inside(want_sens));
  std::size_t touched = 0;
  for (std::size_t v = 0; v < b.size(); ++v)
    if ((v < first || v >= first + count) && (b[v] != -7.0f || s[v] != -7.0f)) ++touched;
  ASSERT_TRUE(op->restrict_voxels(0, 0)) << backend();
  const double ew = rel_l2(forward_host(*op, x), forward_host(cpu, x));
  std::printf("%s voxel range: forward %.3g  back %.3g  sensitivity %.3g  outside written %zu  whole again %.3g\n",
              backend().c_str(), ef, eb, es, touched, ew);
  EXPECT_LT(ef, tol.operator_rel);
  EXPECT_LT(eb, tol.operator_rel);
  EXPECT_LT(es, tol.operator_rel);
  EXPECT_EQ(touched, 0u);
  EXPECT_LT(ew, tol.operator_rel);
}

}  // namespace tomo::glpet::test
