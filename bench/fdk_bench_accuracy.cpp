// bench_fdk's accuracy part (see fdk_bench_accuracy.hpp).
#include "bench/fdk_bench_accuracy.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <exception>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/simulate.hpp"

namespace tomo::fdk::bench_accuracy {
namespace {

const std::array<float, 2> kHu{50000.0f, 0.0f};  // the phantom's skull (0.02 mm⁻¹) = 1000 HU

// The z-slices k_s = step/2 + s·step (step = L / S) of the L³ RabbitCT volume as a grid of their
// own: same x/y voxels, z spacing step·R_L. The cpu reference runs on it (OpenMP over rows).
Grid3 slice_subset_grid(int L, int S) {
  const Grid3 full = rabbit_grid(L);
  S = std::min(S, L);
  const int step = L / S;
  Grid3 g = full;
  g.dims[2] = S;
  g.voxel_mm[2] = full.voxel_mm[2] * step;
  g.origin_mm[2] = full.origin_mm[2] + (step / 2) * full.voxel_mm[2];
  return g;
}
std::vector<int> slice_subset(int L, int S) {
  S = std::min(S, L);
  std::vector<int> k;
  for (int s = 0; s < S; ++s) k.push_back(L / S / 2 + s * (L / S));
  return k;
}
// The subset's slices of a full L³ volume, on the subset grid.
VolumeF extract_slices(const VolumeF& v, const Grid3& sub, const std::vector<int>& ks) {
  VolumeF out(sub);
  const std::size_t slice = static_cast<std::size_t>(sub.dims[0]) * sub.dims[1];
  for (std::size_t s = 0; s < ks.size(); ++s)
    std::copy_n(v.data.begin() + static_cast<std::ptrdiff_t>(ks[s] * slice), slice,
                out.data.begin() + static_cast<std::ptrdiff_t>(s * slice));
  return out;
}

}  // namespace

// Accuracy: the default scene's problem (124 views of 312×240 at 1.28 mm), cpu vs each backend.
void small_accuracy(int L, const std::vector<std::string>& backends, nlohmann::json& out) {
  auto& reg = BackendRegistry<ConeBeamBackprojector>::instance();
  CArmGeometry g;
  g.projections = 124;
  g.sx = 312;
  g.sy = 240;
  g.pixel_mm = 1.28;
  const ProjectionStack p = simulate_preprocessed(shepp_logan_3d(), g, {});
  const Grid3 grid = rabbit_grid(L);
  auto cpu = reg.create("cpu");
  const VolumeF ref = reconstruct(*cpu, grid, p, 31);
  const auto ref_hu = to_hu(ref, kHu);
  for (const auto& b : backends)
    for (const Interpolation mode : {Interpolation::hardware, Interpolation::exact}) try {
        const std::string interp = to_string(mode);
        auto op = reg.create(b);
        BackprojectorOptions o;
        o.interpolation = mode;
        op->configure(o);
        const VolumeF v = reconstruct(*op, grid, p, 31);
        const RabbitMetric m = rabbit_metric(to_hu(v, kHu), ref_hu);
        const double rel = relative_l2(v.data, ref.data);
        std::printf("accuracy %s/%s at L=%d vs cpu: PSNR %.1f dB, RMSE %.3f HU, max %g HU, rel. L2 %.2e\n",
                    b.c_str(), interp.c_str(), L, m.psnr_db, m.rmse, m.max_abs, rel);
        out["accuracy"][b][interp] = {{"L", L},
                                      {"psnr_db", std::isfinite(m.psnr_db) ? m.psnr_db : 999.0},
                                      {"rmse_hu", m.rmse},
                                      {"max_abs_hu", m.max_abs},
                                      {"rel_l2", rel}};
      } catch (const std::exception& e) {
        std::printf("accuracy %s/%s failed: %s\n", b.c_str(), to_string(mode).c_str(), e.what());
      }
}

References cpu_references(const std::vector<int>& sizes, const std::vector<int>& psnr_sizes, int slices,
                          const ProjectionStack& p, nlohmann::json& out) {
  References refs;
  for (int L : sizes) {
    if (std::find(psnr_sizes.begin(), psnr_sizes.end(), L) == psnr_sizes.end()) continue;
    Reference r{slice_subset_grid(L, slices), slice_subset(L, slices), {}};
    auto cpu = BackendRegistry<ConeBeamBackprojector>::instance().create("cpu");
    BackprojectTiming t;
    r.hu = to_hu(reconstruct(*cpu, r.grid, p, 62, &t), kHu);
    std::printf("cpu reference at L=%d on %zu z-slices (k = %d, %d, ... step %d): %.1f s\n", L, r.slices.size(),
                r.slices.front(), r.slices.size() > 1 ? r.slices[1] : r.slices.front(), L / int(r.slices.size()),
                t.total_ms / 1000);
    out["cpu_reference"].push_back({{"L", L}, {"slices", r.slices}, {"ms", t.total_ms}});
    refs.emplace(L, std::move(r));
  }
  return refs;
}

RabbitMetric psnr_vs_cpu(const Reference& r, const VolumeF& v) {
  return rabbit_metric(to_hu(extract_slices(v, r.grid, r.slices), kHu), r.hu);
}

}  // namespace tomo::fdk::bench_accuracy
