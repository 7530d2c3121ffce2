// bench_oat's cuda rows (oat_bench_cuda.hpp): the FBP variants side by side, each against the
// slower of its kernel's two probes, with its image's error against the cpu; H_int and H_intᵀ.
#include "bench/oat_bench_cuda.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "bench/harness.hpp"
#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/oat/cuda_bench.hpp"
#endif

namespace tomo::oat::oat_bench {

#ifdef TOMO_HAVE_CUDA
namespace {

// The cpu FBP (double, all threads) of the middle z-slice of `gf` on data p, and the rel. L2 of a
// GPU image's same slice against it.
std::function<double(const std::vector<float>&)> slice_error(const OatGeometry& gf, const std::vector<double>& p) {
  OatGeometry g = gf;
  const int kz = gf.grid.dims[2] / 2;
  g.grid.dims[2] = 1;
  g.grid.origin_mm[2] = gf.grid.origin_mm[2] + kz * gf.grid.voxel_mm[2];
  auto cpu = BackendRegistry<Fbp>::instance().create("cpu");
  cpu->configure(g, FbpOptions{});
  std::vector<double> ref(g.grid.count());
  const double ms = bench::time_ms([&] { cpu->reconstruct(p, ref); }, [] {});
  std::printf("FBP error reference: cpu (double, all threads) on z-slice %d, %.0f ms\n", kz, ms);
  return [ref, offset = static_cast<std::size_t>(kz) * ref.size()](const std::vector<float>& img) {
    const std::vector<double> slice(img.begin() + static_cast<std::ptrdiff_t>(offset),
                                    img.begin() + static_cast<std::ptrdiff_t>(offset + ref.size()));
    return relative_l2(slice, ref);
  };
}

// The deferred kernels' lines: total (main + fix-up) and the fix-up pass alone, the list entries
// used (per voxel-transducer update) against the capacity, and whether the lists overflowed.
void deferred_lines(const CudaFbpTimes& f, double updates, nlohmann::json& out) {
  for (int s = 0; s < 2; ++s) {
    if (f.deferred_ms[s] <= 0) continue;
    const int v = s == 0 ? 8 : 16;
    std::printf("FBP deferred kernel shared-%dx: %.2f ms (%.3g updates/s), fix-up pass alone %.2f ms, main kernel "
                "~%.2f ms; %zu list entries (%.3g per update, capacity %zu per block)%s\n",
                v, f.deferred_ms[s], updates / (f.deferred_ms[s] * 1e-3), f.fixup_ms[s], f.deferred_ms[s] - f.fixup_ms[s],
                f.deferred_entries[s], double(f.deferred_entries[s]) / updates, f.deferred_capacity,
                f.deferred_overflow[s] ? ", OVERFLOWED: the time is the pinned kernel's" : "");
    out["fbp_deferred"][std::to_string(v)] = {{"ms", f.deferred_ms[s]},
                                              {"fixup_ms", f.fixup_ms[s]},
                                              {"entries", f.deferred_entries[s]},
                                              {"capacity_per_block", f.deferred_capacity},
                                              {"overflow", f.deferred_overflow[s]}};
  }
}

// One FBP row per timed cuda variant, each against the slower of its kernel's two probes (the one
// that bounds it); the fastest variant and the backend's default go to `out`.
void cuda_fbp_rows(const Args& a, const OatGeometry& gf, double updates, std::vector<Row>& rows, nlohmann::json& out) {
  CudaFbpRequest req;
  if (!a.fbp_variants.empty()) {
    auto has = [&](const char* n) {
      return std::find(a.fbp_variants.begin(), a.fbp_variants.end(), n) != a.fbp_variants.end();
    };
    req.texture = has("texture"), req.ldg = has("ldg"), req.shared4 = has("shared4"), req.shared8 = has("shared8");
    req.shared4b = has("shared4b"), req.shared8b = has("shared8b"), req.lean8 = has("shared8l");
    req.lean16 = has("shared16l"), req.fast8 = has("shared8f"), req.fast16 = has("shared16f");
    req.pinned8 = has("shared8p"), req.pinned16 = has("shared16p");
    req.unrolled8 = has("shared8u"), req.unrolled16 = has("shared16u");
    req.deferred8 = has("shared8x"), req.deferred16 = has("shared16x");
  }
  const std::vector<double> p = pattern(gf.data_size(), 0.37);
  req.error = slice_error(gf, p);
  const CudaFbpTimes f = time_cuda_fbp(gf, p, a.reps, req);
  auto add = [&](const char* mode, double ms, double fetch_ms, double compute_ms, const char* fetch_name) {
    if (ms <= 0) return;
    const bool fetch_bound = fetch_ms >= compute_ms;
    rows.push_back({"FBP", "cuda", mode, ms, updates / (ms * 1e-3), std::max(fetch_ms, compute_ms),
                    fetch_bound ? fetch_name : "arithmetic probe"});
  };
  if (f.fetch_probe_ms > 0)
    std::printf("FBP texture kernel probes: texture fetches %.2f ms (%.3g fetches/s), arithmetic without fetches "
                "%.2f ms (%.3g updates/s)\n",
                f.fetch_probe_ms, updates / (f.fetch_probe_ms * 1e-3), f.compute_probe_ms,
                updates / (f.compute_probe_ms * 1e-3));
  for (int s = 0; s < 2; ++s)
    if (f.shared_probe_ms[s] > 0)
      std::printf("FBP shared kernel, %d voxels/thread (windows of %d samples, %d transducers per tile) probes: shared "
                  "reads %.2f ms (%.3g reads/s), arithmetic without shared reads %.2f ms (%.3g updates/s)\n",
                  s == 0 ? 4 : 8, f.slot, f.tile, f.shared_probe_ms[s], updates / (f.shared_probe_ms[s] * 1e-3),
                  f.shared_compute_ms[s], updates / (f.shared_compute_ms[s] * 1e-3));
  add("texture", f.exact_ms, f.fetch_probe_ms, f.compute_probe_ms, "texture probe");
  add("ldg", f.exact_ldg_ms, f.fetch_probe_ms, f.compute_probe_ms, "texture probe");
  add("shared-4", f.shared_ms[0], f.shared_probe_ms[0], f.shared_compute_ms[0], "shared probe");
  add("shared-8", f.shared_ms[1], f.shared_probe_ms[1], f.shared_compute_ms[1], "shared probe");
  add("shared-4b", f.batched_ms[0], f.shared_probe_ms[0], f.shared_compute_ms[0], "shared probe");
  add("shared-8b", f.batched_ms[1], f.shared_probe_ms[1], f.shared_compute_ms[1], "shared probe");
  for (int s = 0; s < 2; ++s)
    if (f.lean_probe_ms[s] > 0)
      std::printf("FBP lean kernel, %d voxels/thread probes: shared reads %.2f ms (%.3g reads/s), fast's arithmetic "
                  "without shared reads %.2f ms (%.3g updates/s)\n",
                  s == 0 ? 8 : 16, f.lean_probe_ms[s], updates / (f.lean_probe_ms[s] * 1e-3), f.lean_compute_ms[s],
                  updates / (f.lean_compute_ms[s] * 1e-3));
  add("shared-8l", f.lean_ms[0], f.lean_probe_ms[0], f.lean_compute_ms[0], "lean shared probe");
  add("shared-16l", f.lean_ms[1], f.lean_probe_ms[1], f.lean_compute_ms[1], "lean shared probe");
  add("shared-8p", f.pinned_ms[0], f.lean_probe_ms[0], f.lean_compute_ms[0], "lean shared probe");
  add("shared-16p", f.pinned_ms[1], f.lean_probe_ms[1], f.lean_compute_ms[1], "lean shared probe");
  add("shared-8u", f.unrolled_ms[0], f.lean_probe_ms[0], f.lean_compute_ms[0], "lean shared probe");
  add("shared-16u", f.unrolled_ms[1], f.lean_probe_ms[1], f.lean_compute_ms[1], "lean shared probe");
  add("shared-8f", f.fast_ms[0], f.lean_probe_ms[0], f.lean_compute_ms[0], "lean shared probe");
  add("shared-16f", f.fast_ms[1], f.lean_probe_ms[1], f.lean_compute_ms[1], "lean shared probe");
  add("shared-8x", f.deferred_ms[0], f.lean_probe_ms[0], f.lean_compute_ms[0], "lean shared probe");
  add("shared-16x", f.deferred_ms[1], f.lean_probe_ms[1], f.lean_compute_ms[1], "lean shared probe");
  deferred_lines(f, updates, out);
  for (Row& r : rows)
    for (const auto& [name, e] : f.errors)
      if (r.what == "FBP" && r.backend == "cuda" && r.mode == name) r.error = e;
  // The fastest variant with the exact contract (every one but the lean "fast" ones, *f) and overall.
  const Row *best = nullptr, *best_exact = nullptr;
  for (const Row& r : rows)
    if (r.what == "FBP" && r.backend == "cuda") {
      if (!best || r.ms < best->ms) best = &r;
      if (r.mode.back() != 'f' && (!best_exact || r.ms < best_exact->ms)) best_exact = &r;
    }
  if (!best) return;
  for (const Row* r : {best_exact, best})
    if (r)
      std::printf("FBP cuda: fastest %s variant %s, %.3g updates/s (%.2fx GAPAT, target 1e12: %s), rel. L2 vs cpu "
                  "%.2e\n",
                  r == best_exact ? "exact" : "of all", r->mode.c_str(), r->rate, r->rate / kGapatUpdatesPerS,
                  r->rate >= 1e12 ? "met" : "missed", r->error);
  std::printf("FBP cuda: the backend runs %s\n", f.default_variant.c_str());
  out["fbp_cuda"] = {{"fastest_variant", best->mode},
                     {"fastest_rate_per_s", best->rate},
                     {"fastest_exact_variant", best_exact ? best_exact->mode : ""},
                     {"fastest_exact_rate_per_s", best_exact ? best_exact->rate : 0.0},
                     {"default_variant", f.default_variant},
                     {"shared_slot", f.slot},
                     {"shared_tile", f.tile},
                     {"target_rate_per_s", 1e12}};
}

}  // namespace

void cuda_rows(const Args& a, const OatGeometry& gf, const OatGeometry& gm, double updates, double patches,
               std::vector<Row>& rows, nlohmann::json& out) {
  cuda_fbp_rows(a, gf, updates, rows, out);
  ModelOptions mo;
  const CudaModelTimes m =
      time_cuda_model(gm, mo, pattern(gm.grid.count(), 0.11), pattern(gm.data_size(), 0.37), a.reps);
  rows.push_back({"H_int", "cuda", "exact", m.forward_exact_ms, patches / (m.forward_exact_ms * 1e-3),
                  m.probe_loads_ms, "load probe"});
  rows.push_back({"H_int", "cuda", "hardware", m.forward_hardware_ms, patches / (m.forward_hardware_ms * 1e-3),
                  m.probe_texture_ms, "texture probe"});
  rows.push_back({"H_intT", "cuda", "exact", m.adjoint_ms, patches / (m.adjoint_ms * 1e-3), m.probe_atomics_ms,
                  "atomics probe"});
}
#else
void cuda_rows(const Args&, const OatGeometry&, const OatGeometry&, double, double, std::vector<Row>&,
               nlohmann::json&) {
  throw UnavailableError("bench_oat: built without CUDA");
}
#endif

}  // namespace tomo::oat::oat_bench
