// The cuda line projector against the cpu reference (double) on random lines and on a glpet-like
// two-module scanner, host and device arrays, and its own adjoint identity in float32, non-TOF and
// in TOF list mode (skipped without a CUDA device).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "compute/core/registry.hpp"
#include "compute/pet/line_projector.hpp"
#include "tests/pet/line_lines.hpp"

namespace tomo::pet::test {
namespace {

double rel_l2(const std::vector<double>& a, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - ref[i]) * (a[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / den);
}

class LineProjectorGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!BackendRegistry<LineProjector>::instance().available("cuda").ok) GTEST_SKIP() << "no CUDA device";
  }
};

// Two 32×32 modules of 2 mm at z = ∓80 mm (every detector pair: 1.05 M lines) over 64³ voxels
// of 1 mm: the shape of glpet's default scene.
std::vector<double> module_lines() {
  std::vector<double> e;
  e.reserve(6 * 1024 * 1024);
  for (int a = 0; a < 1024; ++a)
    for (int b = 0; b < 1024; ++b) {
      const double p[6] = {-31 + 2.0 * (a % 32), -31 + 2.0 * (a / 32), -80, -31 + 2.0 * (b % 32), -31 + 2.0 * (b / 32), 80};
      e.insert(e.end(), p, p + 6);
    }
  return e;
}

void compare(const LineGrid& g, const std::vector<double>& ends, double tol, const LineTof* tof = nullptr) {
  auto cpu = make_line_projector("cpu", g, ends, tof);
  auto gpu = make_line_projector("cuda", g, ends, tof);
  const std::size_t n = ends.size() / 6;
  const std::vector<double> x = random_values(g.count(), 21), v = random_values(n, 22);
  std::vector<double> yc(n), yg(n), bc(g.count()), bg(g.count());
  cpu->forward(x, yc);
  gpu->forward(x, yg);
  cpu->back(v, bc);
  gpu->back(v, bg);
  EXPECT_LT(rel_l2(yg, yc), tol) << "forward, cuda vs cpu";
  EXPECT_LT(rel_l2(bg, bc), tol) << "back, cuda vs cpu";
  // The cuda pair's own adjoint identity, to float32 rounding.
  const double lhs = dot(yg, v), rhs = dot(x, bg);
  EXPECT_LT(std::abs(lhs - rhs), 1e-5 * std::abs(lhs)) << lhs << " vs " << rhs;
}

TEST_F(LineProjectorGpu, MatchesCpuOnRandomLines) {
  LineGrid g;
  g.dims = {40, 36, 30};
  g.voxel_mm = {0.8, 1.1, 1.7};
  g.origin_mm = {-15.0, -18.0, -24.0};
  compare(g, random_lines(g, 200000, 8.0, 5), 2e-5);
}

TEST_F(LineProjectorGpu, MatchesCpuOnTwoModules) {
  LineGrid g;
  g.dims = {64, 64, 64};
  g.voxel_mm = {1, 1, 1};
  g.origin_mm = {-31.5, -31.5, -31.5};
  compare(g, module_lines(), 2e-5);
}

// TOF list mode: random bins, σ and centre offsets per line, kernels cut at 3σ.
TEST_F(LineProjectorGpu, TofMatchesCpuOnRandomLines) {
  LineGrid g;
  g.dims = {40, 36, 30};
  g.voxel_mm = {0.8, 1.1, 1.7};
  g.origin_mm = {-15.0, -18.0, -24.0};
  const std::size_t n = 200000;
  const std::vector<double> ends = random_lines(g, n, 8.0, 15);
  const std::vector<double> u = random_values(3 * n, 16);
  std::vector<int> bins(n);
  std::vector<double> sigma(n), offset(n);
  for (std::size_t i = 0; i < n; ++i) {
    bins[i] = int(u[i] * 17);
    sigma[i] = 2.0 + 8.0 * u[n + i];
    offset[i] = -3.0 + 6.0 * u[2 * n + i];
  }
  const LineTof tof{bins, 17, 6.0, sigma, offset, 3.0};
  compare(g, ends, 2e-5, &tof);
}

// The two modules' 1.05 M LORs with 9 bins of 20 mm, one σ (parallelproj's global form).
TEST_F(LineProjectorGpu, TofMatchesCpuOnTwoModules) {
  LineGrid g;
  g.dims = {64, 64, 64};
  g.voxel_mm = {1, 1, 1};
  g.origin_mm = {-31.5, -31.5, -31.5};
  const std::vector<double> ends = module_lines();
  std::vector<int> bins(ends.size() / 6);
  for (std::size_t i = 0; i < bins.size(); ++i) bins[i] = int((i * 7919) % 9);
  const std::vector<double> sigma = {12.0}, offset = {0.0};
  const LineTof tof{bins, 9, 20.0, sigma, offset, 3.0};
  compare(g, ends, 2e-5, &tof);
}

// Device arrays: the same numbers as the host call (the same kernels on the caller's memory).
TEST_F(LineProjectorGpu, DeviceArraysAsHostArrays) {
  LineGrid g;
  g.dims = {24, 20, 16};
  g.origin_mm = {-11.5, -9.5, -7.5};
  const std::vector<double> ends = random_lines(g, 30000, 4.0, 9);
  auto op = make_line_projector("cuda", g, ends);
  const std::vector<double> x = random_values(g.count(), 1);
  std::vector<double> y(30000);
  op->forward(x, y);
  const std::vector<float> xf(x.begin(), x.end());
  float *dx = nullptr, *dy = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dx), xf.size() * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dy), y.size() * 4), cudaSuccess);
  cudaMemcpy(dx, xf.data(), xf.size() * 4, cudaMemcpyHostToDevice);
  op->forward_device(dx, dy);
  std::vector<float> yd(y.size());
  cudaMemcpy(yd.data(), dy, yd.size() * 4, cudaMemcpyDeviceToHost);
  for (std::size_t i = 0; i < y.size(); ++i) ASSERT_EQ(float(y[i]), yd[i]) << "line " << i;
  op->back_device(dy, dx);
  std::vector<float> bd(xf.size());
  cudaMemcpy(bd.data(), dx, bd.size() * 4, cudaMemcpyDeviceToHost);
  std::vector<double> b(xf.size());
  op->back(std::vector<double>(yd.begin(), yd.end()), b);
  for (std::size_t j = 0; j < b.size(); ++j) ASSERT_NEAR(bd[j], b[j], 1e-5 * (1 + std::abs(b[j]))) << "voxel " << j;
  cudaFree(dx);
  cudaFree(dy);
}

}  // namespace
}  // namespace tomo::pet::test
