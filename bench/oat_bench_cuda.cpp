// bench_oat's cuda rows (oat_bench_cuda.hpp): the FBP kernels side by side, each against a
// bench-only probe of the texture kernel and with its image's error against the cpu; H_int and
// H_intᵀ (the gather) against their bench-only probes, and the bench-only H_intᵀ forms beside it.
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
#include "bench/cuda/oat/fbp_model_timing.hpp"
#include "bench/cuda/oat/pls_breakdown.hpp"
#include "bench/cuda/oat/srt_symmetric.hpp"
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

// The deferred kernel's line: its list entries (per voxel-transducer update) against the capacity,
// and whether the lists overflowed.
void deferred_line(const CudaFbpTimes& f, double updates, nlohmann::json& out) {
  if (f.deferred_ms <= 0) return;
  std::printf("FBP deferred kernel: %.2f ms (%.3g updates/s); %zu list entries (%.3g per update, capacity %zu per "
              "block)%s\n",
              f.deferred_ms, updates / (f.deferred_ms * 1e-3), f.deferred_entries,
              double(f.deferred_entries) / updates, f.deferred_capacity,
              f.deferred_overflow ? ", OVERFLOWED: the time is the pinned kernel's" : "");
  out["fbp_deferred"] = {{"ms", f.deferred_ms},
                         {"entries", f.deferred_entries},
                         {"capacity_per_block", f.deferred_capacity},
                         {"overflow", f.deferred_overflow}};
}

// One FBP row per timed cuda kernel; the fastest and the backend's default go to `out`. texture and
// ldg are set against the slower of the texture kernel's two probes (fetches only, arithmetic
// only: the one that bounds them); deferred and pinned, which read shared-memory windows instead
// of fetching, against the arithmetic probe: the exact formula's per-update arithmetic in the
// texture kernel's form, which their restructured loops may beat (above 100 %).
void cuda_fbp_rows(const Args& a, const OatGeometry& gf, double updates, std::vector<Row>& rows, nlohmann::json& out) {
  CudaFbpRequest req;
  req.kernels = a.fbp_kernels;
  const std::vector<double> p = pattern(gf.data_size(), 0.37);
  req.error = slice_error(gf, p);
  const CudaFbpTimes f = time_cuda_fbp(gf, p, a.reps, req);
  const std::size_t first = rows.size();
  const bool fetch_bound = f.fetch_probe_ms >= f.arithmetic_probe_ms;
  const double texture_ceiling = std::max(f.fetch_probe_ms, f.arithmetic_probe_ms);
  const char* texture_probe = fetch_bound ? "fetch probe (bench only)" : "arith. probe (bench only)";
  auto add = [&](const char* kernel, double ms, double ceiling_ms, const char* ceiling) {
    if (ms > 0) rows.push_back({"FBP", "cuda", kernel, ms, updates / (ms * 1e-3), ceiling_ms, ceiling});
  };
  if (f.arithmetic_probe_ms > 0)
    std::printf("FBP texture kernel probes (bench only): texture fetches %.2f ms (%.3g fetches/s), arithmetic "
                "without fetches %.2f ms (%.3g updates/s)\n",
                f.fetch_probe_ms, updates / (f.fetch_probe_ms * 1e-3), f.arithmetic_probe_ms,
                updates / (f.arithmetic_probe_ms * 1e-3));
  add("deferred", f.deferred_ms, f.arithmetic_probe_ms, "arith. probe (bench only)");
  add("pinned", f.pinned_ms, f.arithmetic_probe_ms, "arith. probe (bench only)");
  add("texture", f.texture_ms, texture_ceiling, texture_probe);
  add("ldg", f.ldg_ms, texture_ceiling, texture_probe);
  out["fbp_probes"] = {{"fetch_ms", f.fetch_probe_ms}, {"arithmetic_ms", f.arithmetic_probe_ms}};
  deferred_line(f, updates, out);
  for (std::size_t i = first; i < rows.size(); ++i)
    for (const auto& [name, e] : f.errors)
      if (rows[i].mode == name) rows[i].error = e;
  const Row* best = nullptr;
  for (std::size_t i = first; i < rows.size(); ++i)
    if (!best || rows[i].ms < best->ms) best = &rows[i];
  if (!best) return;
  std::printf("FBP cuda: fastest kernel %s, %.3g updates/s (%.2fx GAPAT, target 1e12: %s), rel. L2 vs cpu %.2e\n",
              best->mode.c_str(), best->rate, best->rate / kGapatUpdatesPerS, best->rate >= 1e12 ? "met" : "missed",
              best->error);
  std::printf("FBP cuda: the backend runs %s\n", f.default_kernel.c_str());
  out["fbp_cuda"] = {{"fastest_kernel", best->mode},
                     {"fastest_rate_per_s", best->rate},
                     {"default_kernel", f.default_kernel},
                     {"shared_slot", f.slot},
                     {"target_rate_per_s", 1e12}};
}

// H_intᵀ: the product's (the merged symmetric scatter on symmetric geometries, else the gather;
// the gather's no-adds probe beside it: its enumeration and patch arithmetic alone), the bench-only
// forms (the scatter against its atomics probe), and the line the product is judged by: its
// speed-up over the scatter and its image against the scatter's.
void adjoint_rows(const CudaModelTimes& m, double patches, std::vector<Row>& rows, nlohmann::json& out) {
  double scatter_ms = 0, no_adds_ms = 0;
  for (const AdjointTime& v : m.adjoints) {
    if (v.name == "scatter") scatter_ms = v.ms;
    if (v.name == "gather-no-adds") no_adds_ms = v.ms;
  }
  const bool gather_product = m.adjoint_form == "gather";
  rows.push_back({"H_intT", "cuda", m.adjoint_form, m.adjoint_ms, patches / (m.adjoint_ms * 1e-3),
                  gather_product ? no_adds_ms : 0.0, gather_product ? "no-adds probe (bench only)" : ""});
  for (const AdjointTime& v : m.adjoints) {
    const bool scatter = v.name == "scatter";
    if (v.name != "gather" || !gather_product)  // the product's row is timed above through ModelDevice
      rows.push_back({"H_intT", "cuda", v.name + "+", v.ms, patches / (v.ms * 1e-3),
                      scatter ? m.probe_atomics_ms : 0.0, scatter ? "atomics probe (bench only)" : ""});
    std::printf("H_intT %s (bench only): %.2f ms (%.3g patches/s), identity %.2e, rel. L2 vs scatter %.2e, vs the "
                "product (%s) %.2e (max %.2e), %d transducer chunk(s)\n",
                v.name.c_str(), v.ms, patches / (v.ms * 1e-3), v.identity, v.rel_l2_vs_scatter, m.adjoint_form.c_str(),
                v.rel_l2_vs_default, v.max_rel_vs_default, v.chunks);
    out["h_int_adjoints"].push_back({{"variant", v.name},
                                     {"ms", v.ms},
                                     {"identity", v.identity},
                                     {"rel_l2_vs_scatter", v.rel_l2_vs_scatter},
                                     {"rel_l2_vs_default_gather", v.rel_l2_vs_default},
                                     {"max_rel_vs_default_gather", v.max_rel_vs_default},
                                     {"chunks", v.chunks}});
  }
  const double speedup = scatter_ms > 0 ? scatter_ms / m.adjoint_ms : 0;
  std::printf("H_intT %s (the product) vs scatter: %.2fx faster (target >= 5x), one call's image rel. L2 %.2e on the "
              "bench's pattern (the PLS image's target: <= 1e-4), identity %.2e (target <= 1e-5)\n",
              m.adjoint_form.c_str(), speedup, m.gather_vs_scatter, m.identity);
  out["h_int_adjoint_gather"] = {{"form", m.adjoint_form},         {"ms", m.adjoint_ms},  {"scatter_ms", scatter_ms},
                                 {"speedup_vs_scatter", speedup}, {"rel_l2_vs_scatter", m.gather_vs_scatter},
                                 {"no_adds_probe_ms", no_adds_ms}, {"identity", m.identity}};
}

// H_srt and H_srtᵀ by the quarter-turn symmetry (bench/cuda/oat/srt_symmetric.hpp) beside the
// product's kernels on the same shell samples: times, u / α against the product's and the
// scatter's, the adjoint identity of each pair.
void symmetric_rows(const Args& a, const OatGeometry& gm, double patches, nlohmann::json& out) {
  const std::size_t samples = static_cast<std::size_t>(gm.transducer_count()) * (gm.time.samples + 2);
  const SymmetricTimes s =
      time_srt_symmetric(gm, ModelOptions{}, pattern(gm.grid.count(), 0.11), pattern(samples, 0.37), a.reps);
  if (!s.ok) {
    std::printf("H_srt symmetric: the geometry is not quarter-turn symmetric: %s\n", s.why.c_str());
    out["h_srt_symmetric"] = {{"symmetric", false}, {"why", s.why}};
    return;
  }
  std::printf("H_srt symmetric (%d orbits of four transducers, %d passes; the float4 interleave inside the "
              "sym-forward row):\n",
              s.orbits, s.passes);
  std::printf("  %-52s %10s %11s %10s %10s %10s %5s %6s\n", "form", "ms", "patches/s", "vs product", "vs scatter",
              "identity", "regs", "chunks");
  nlohmann::json rows = nlohmann::json::array();
  const double product_forward = s.forward.empty() ? 0 : s.forward.front().ms;
  const double product_adjoint = s.adjoint.empty() ? 0 : s.adjoint.front().ms;
  for (const auto* list : {&s.forward, &s.adjoint})
    for (const SymmetricRow& r : *list) {
      const double base = list == &s.forward ? product_forward : product_adjoint;
      std::printf("  %-52s %10.2f %11.3g %10.2e %10.2e %10.2e %5d %6d  (%.2fx the product)\n", r.name.c_str(), r.ms,
                  patches / (r.ms * 1e-3), r.rel_l2_vs_product, r.rel_l2_vs_scatter, r.identity, r.registers,
                  r.chunks, r.ms > 0 ? base / r.ms : 0.0);
      rows.push_back({{"form", r.name},
                      {"ms", r.ms},
                      {"rel_l2_vs_product", r.rel_l2_vs_product},
                      {"rel_l2_vs_scatter", r.rel_l2_vs_scatter},
                      {"identity", r.identity},
                      {"registers", r.registers},
                      {"local_bytes", r.local_bytes},
                      {"chunks", r.chunks}});
    }
  // The product's adds against kernels that issue as many and do nothing else: its share of each
  // ceiling's rate, over its whole time and over the time its adds add to the probe without them.
  nlohmann::json ceilings = nlohmann::json::array();
  if (s.adds > 0 && s.product_adjoint_ms > 0) {
    const double adds_ms = s.product_adjoint_ms - s.no_adds_ms;
    std::printf("H_srtT (the product's, %.2f ms; %.2f ms without its adds) issues %.4g float4 atomics, %.3f a "
                "patch; the interleaved image %.1f MB, L2 %.1f MB:\n",
                s.product_adjoint_ms, s.no_adds_ms, double(s.adds), double(s.adds) / patches, s.c4_bytes / 1e6,
                s.l2_bytes / 1e6);
    std::printf("  %-58s %10s %12s %14s %14s\n", "ceiling: as many adds", "ms", "adds/s", "product/this",
                "adds' ms/this");
    for (const SymmetricRow& r : s.ceilings) {
      std::printf("  %-58s %10.2f %12.4g %13.1f%% %13.1f%%\n", r.name.c_str(), r.ms, double(s.adds) / (r.ms * 1e-3),
                  100.0 * r.ms / s.product_adjoint_ms, adds_ms > 0 ? 100.0 * r.ms / adds_ms : 0.0);
      ceilings.push_back({{"pattern", r.name}, {"ms", r.ms}, {"adds_per_s", double(s.adds) / (r.ms * 1e-3)}});
    }
  }
  out["h_srt_symmetric"] = {{"symmetric", true},
                            {"orbits", s.orbits},
                            {"passes", s.passes},
                            {"product_identity", s.product_identity},
                            {"rows", rows},
                            {"adjoint_float4_atomics", s.adds},
                            {"adjoint_ms", s.product_adjoint_ms},
                            {"adjoint_no_adds_ms", s.no_adds_ms},
                            {"atomic_ceilings", ceilings}};
}

}  // namespace

void cuda_rows(const Args& a, const OatGeometry& gf, const OatGeometry& gm, double updates, double patches,
               std::vector<Row>& rows, nlohmann::json& out) {
  if (a.fbp) cuda_fbp_rows(a, gf, updates, rows, out);
  if (!a.model) return;
  if (a.symmetric_only) {
    symmetric_rows(a, gm, patches, out);
    return;
  }
  ModelOptions mo;
  const CudaModelTimes m =
      time_cuda_model(gm, mo, pattern(gm.grid.count(), 0.11), pattern(gm.data_size(), 0.37), a.reps,
                      a.adjoints);
  rows.push_back({"H_int", "cuda", "exact", m.forward_exact_ms, patches / (m.forward_exact_ms * 1e-3),
                  m.probe_loads_ms, "load probe (bench only)"});
  rows.push_back({"H_int", "cuda", "hardware", m.forward_hardware_ms, patches / (m.forward_hardware_ms * 1e-3),
                  m.probe_texture_ms, "texture probe (bench only)"});
  rows.push_back({"H_int", "cuda", "exact-table+", m.forward_table_ms, patches / (m.forward_table_ms * 1e-3),
                  m.probe_loads_ms, "load probe (bench only)"});
  std::printf("H_int exact with the azimuth table (bench only): %.2f ms against %.2f ms, u rel. L2 vs the product's "
              "%.2e\n",
              m.forward_table_ms, m.forward_exact_ms, m.forward_table_vs_exact);
  out["h_int_forward_table"] = {{"ms", m.forward_table_ms},
                                {"product_ms", m.forward_exact_ms},
                                {"rel_l2_vs_product", m.forward_table_vs_exact}};
  adjoint_rows(m, patches, rows, out);
  if (a.symmetric) symmetric_rows(a, gm, patches, out);
}

void cuda_pls_breakdown(const Args& a, const OatGeometry& gm, nlohmann::json& out) {
  const PlsBreakdown b = time_pls_breakdown(gm, pattern(gm.grid.count(), 0.11), pattern(gm.data_size(), 0.37),
                                            a.reps, std::max(2, a.pls_iterations));
  std::printf("PLS-int iteration, cuda, where it goes (%d transducers; %d iterations timed): H kernels %.1f ms, "
              "H call %.1f ms (host %.1f), Ht kernels %.1f ms, Ht call %.1f ms (host %.1f), CG vector work and "
              "report %.1f ms; measured mean %.1f ms, steady state (H + Ht + CG) %.1f ms\n",
              gm.transducer_count(), b.iterations, b.forward_kernels_ms, b.forward_call_ms,
              b.forward_call_ms - b.forward_kernels_ms, b.adjoint_kernels_ms, b.adjoint_call_ms,
              b.adjoint_call_ms - b.adjoint_kernels_ms, b.cg_host_ms, b.iteration_ms, b.steady_iteration_ms);
  out["pls_int_iteration"]["cuda_breakdown"] = {{"transducers", gm.transducer_count()},
                                                {"iterations", b.iterations},
                                                {"forward_kernels_ms", b.forward_kernels_ms},
                                                {"forward_call_ms", b.forward_call_ms},
                                                {"adjoint_kernels_ms", b.adjoint_kernels_ms},
                                                {"adjoint_call_ms", b.adjoint_call_ms},
                                                {"cg_host_ms", b.cg_host_ms},
                                                {"iteration_ms", b.iteration_ms},
                                                {"steady_iteration_ms", b.steady_iteration_ms}};
}
#else
void cuda_pls_breakdown(const Args&, const OatGeometry&, nlohmann::json&) {
  throw UnavailableError("bench_oat: built without CUDA");
}
void cuda_rows(const Args&, const OatGeometry&, const OatGeometry&, double, double, std::vector<Row>&,
               nlohmann::json&) {
  throw UnavailableError("bench_oat: built without CUDA");
}
#endif

}  // namespace tomo::oat::oat_bench
