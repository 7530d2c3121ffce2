// bench_oat: the oat operators ([Wang2013]) on every available GPU backend, in one run, on OUR
// paper-sized scene (128×128×160 voxels of 0.2 mm, Rˢ = 65 mm, 20 MHz; never the paper's
// tables): the FBP from 128×256 transducers in voxel·transducer updates per second against GAPAT's
// ≈ 2.5·10¹¹ per GPU; one H_int and one H_intᵀ of the 64×128 subset in shell patches per second
// against their bench-only probes (bench/cuda/oat/srt_probes.cu: loads or texture fetches for
// H_int, atomics for H_intᵀ); every GPU figure against our cpu reference on one core and on all
// cores (measured on a transducer subset, exactly linear in the transducers, and extrapolated)
// beside the paper's ≈ 1000× (FBP) and ≈ 125× (PLS-int).
// The cuda FBP's kernels side by side (the same exact formula; cuda/oat/fbp_device.hpp): deferred
// (the default), pinned (its fallback where the deferred lists overflow), texture and ldg (where a
// block's window does not fit shared memory), each with its image's rel. L2 against the cpu FBP
// (double, all threads) of the middle z-slice on the same data and against the texture kernel's
// bench-only probes (bench/cuda/oat/fbp_probes.cu: texture fetches only, arithmetic only; texture
// and ldg against the slower, deferred and pinned against the arithmetic); the deferred kernel's
// list lines.
// H_intᵀ is the product's (on this scene's quarter-turn symmetric array the merged symmetric
// scatter, cuda/oat/srt_sym_merged.cuh; elsewhere the gather, cuda/oat/srt_gather.cuh) beside the
// scatter and the gather forms (bench/cuda/oat/srt_adjoint_variants.hpp), each with its adjoint identity against the
// exact forward and its image's rel. L2 against the scatter's; one PLS-int iteration is timed
// through each GPU backend's Model against the cpu's.
// Flags: --small (24³ voxels of 1 mm, 8×16 / 4×8 transducers: runs on cpu + llvmpipe),
//        --reps 2, --backends cuda,gl-compute, --fbp-kernels deferred,pinned,texture,ldg, --json FILE,
//        --only fbp|model|pls|symmetric (just those rows; pls: the PLS-int iteration and where its time
//        goes; symmetric: the quarter-turn symmetric H_srt / H_srtᵀ rows alone, and the product
//        H_srtᵀ's float4 atomics counted and issued again by kernels that do nothing else),
//        --pls-iterations 2 (0: no PLS timing), --model-rings 64 --model-views 128 (H_int's transducers;
//        128 x 256 is the oat_paper scene's),
//        --adjoints gather,scatter,... (the H_intᵀ variants timed; default all),
//        --symmetric false (no rows of the quarter-turn symmetric H_srt / H_srtᵀ, bench/cuda/oat/srt_symmetric.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/harness.hpp"
#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/params.hpp"
#include "compute/oat/pls.hpp"
#include "compute/oat/stages.hpp"
#include "bench/oat_bench_cuda.hpp"

using namespace tomo;
using namespace tomo::oat;
using namespace tomo::oat::oat_bench;

// Timing data: the cost does not depend on the values (nonzero everywhere, so that H_intᵀ skips
// nothing); accuracy is the tests' job.
std::vector<double> tomo::oat::oat_bench::pattern(std::size_t n, double f) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 1.0 + 0.5 * std::sin(f * static_cast<double>(i));
  return v;
}

namespace {

constexpr double kSeedFbpSpeedup = 1000, kSeedPlsIntSpeedup = 125;

Args parse_args(int argc, char** argv) {
  Args a;
  bench::Cli cli("bench_oat", "oat FBP and H_int/H_intT speed against their ceilings and the cpu reference");
  CLI::App& app = cli.app();
  app.add_flag("--small", a.small, "24^3 voxels of 1 mm, 8x16 / 4x8 transducers (cpu + software GL)");
  app.add_option("--reps", a.reps, "timed repetitions (best kept)")->capture_default_str();
  app.add_option("--backends", a.backends, "GPU backends (default: every available non-cpu)")->delimiter(',');
  app.add_option("--fbp-kernels", a.fbp_kernels,
                 "cuda FBP kernels to time (default: all): deferred (the backend's default), pinned (its fallback "
                 "on list overflow), texture and ldg (where the window does not fit shared memory)")
      ->delimiter(',')
      ->check(CLI::IsMember({"deferred", "pinned", "texture", "ldg"}));
  app.add_option("--adjoints", a.adjoints,
                 "H_intT variants to time by name (default: all; bench/cuda/oat/srt_adjoint_variants.cu)")
      ->delimiter(',');
  app.add_option("--symmetric", a.symmetric,
                 "time H_srt and H_srtT using the quarter-turn symmetry of the geometry (bench/cuda/oat/srt_symmetric.hpp)")
      ->capture_default_str();
  std::string only;
  app.add_option("--only", only,
                 "time only the FBP rows, only the H_int rows (and the PLS iteration) or only the PLS iteration")
      ->check(CLI::IsMember({"fbp", "model", "pls", "symmetric"}));
  app.add_option("--model-rings", a.model_rings, "rings of transducers for H_int and PLS")->capture_default_str()
      ->check(CLI::Range(1, 4096));
  app.add_option("--model-views", a.model_views, "views per ring for H_int and PLS")->capture_default_str()
      ->check(CLI::Range(1, 4096));
  app.add_option("--pls-iterations", a.pls_iterations, "PLS iterations timed through the cuda model (0: none)")
      ->capture_default_str();
  cli.parse(argc, argv);
  a.fbp = only != "model" && only != "pls" && only != "symmetric";
  a.model = only != "fbp";
  a.pls_only = only == "pls";
  a.symmetric_only = only == "symmetric";
  if (a.symmetric_only) a.symmetric = true;
  if (a.small) {
    a.dims = {24, 24, 24};
    a.voxel = 1.0;
    a.radius = 30.0;
    a.fs = 10.0;
    a.fbp_rings = 8, a.fbp_views = 16, a.cpu_rings = 1, a.cpu_views = 2;
    if (!app.count("--model-rings")) a.model_rings = 4;
    if (!app.count("--model-views")) a.model_views = 8;
    if (!app.count("--reps")) a.reps = 1;
  }
  a.reps = std::max(1, a.reps);
  a.json = cli.json_path();
  return a;
}

// Our scene: a centred grid, rings × views on the sphere about its centre, the time window that
// covers the support (covering_time_axis, 1 µs margins). Every transducer sees the same shells.
OatGeometry scene(const Args& a, int rings, int views) {
  OatGeometry g;
  g.grid = Grid3::centred(a.dims, {a.voxel, a.voxel, a.voxel});
  set_rings_views(g, rings, views, a.radius);
  g.c0_mm_per_us = 1.5;
  g.gruneisen = 1.0;
  g.time = covering_time_axis(g, a.fs, 1.0);
  return g;
}

std::vector<std::string> gpu_backends(const Args& a) {
  if (!a.backends.empty()) return a.backends;
  std::vector<std::string> out;
  for (const auto& n : BackendRegistry<Fbp>::instance().available_names())
    if (n != "cpu") out.push_back(n);
  return out;
}

// Best of `reps` calls of `f`, waited for through `sync`.
template <class F, class S>
double best_ms(int reps, F&& f, S&& sync) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) t.push_back(bench::time_ms(f, sync));
  return bench::best_of(t);
}

// cpu reference rates on the transducer subset (exactly linear in the transducers): FBP updates/s
// and H_int / H_intᵀ patches/s, single thread and all threads.
struct CpuRates {
  std::string all_label;
  double fbp[2] = {0, 0}, forward[2] = {0, 0}, adjoint[2] = {0, 0};  // [0] one thread, [1] all
};

CpuRates cpu_rates(const Args& a, const OatGeometry& full) {
  CpuRates r;
  OatGeometry g = scene(a, a.cpu_rings, a.cpu_views);
  g.time = full.time;
  const double updates = static_cast<double>(g.grid.count()) * g.transducer_count();
  const auto p = pattern(g.data_size(), 0.37), x = pattern(g.grid.count(), 0.11);
  ModelOptions mo;
  const double patches = InterpolationStages(g, mo).patch_count();
  for (int t = 0; t < 2; ++t) {
    FbpOptions fo;
    fo.threads = mo.threads = t == 0 ? 1 : 0;
    std::vector<double> img(g.grid.count()), u(g.data_size()), alpha(g.grid.count());
    if (a.fbp) {
      auto fbp = BackendRegistry<Fbp>::instance().create("cpu");
      fbp->configure(g, fo);
      r.fbp[t] = updates / (best_ms(1, [&] { fbp->reconstruct(p, img); }, [] {}) * 1e-3);
    }
    if (!a.model) continue;
    auto model = BackendRegistry<Model>::instance().create("cpu");
    model->configure(g, mo);
    if (t == 1) r.all_label = model->describe();
    r.forward[t] = patches / (best_ms(1, [&] { model->forward(x, u); }, [] {}) * 1e-3);
    r.adjoint[t] = patches / (best_ms(1, [&] { model->adjoint(p, alpha); }, [] {}) * 1e-3);
  }
  std::printf("cpu reference on %dx%d transducers (%s): FBP %.3g / %.3g updates/s, H_int %.3g / %.3g and H_intT "
              "%.3g / %.3g patches/s (one thread / all)\n",
              a.cpu_rings, a.cpu_views, r.all_label.c_str(), r.fbp[0], r.fbp[1], r.forward[0], r.forward[1],
              r.adjoint[0], r.adjoint[1]);
  return r;
}

void print_row(const Row& r) {
  char ceil[64] = "-";
  if (r.ceiling_ms > 0) std::snprintf(ceil, sizeof ceil, "%5.1f%% of %s", 100.0 * r.ceiling_ms / r.ms, r.ceiling.c_str());
  char err[32] = "-";
  if (r.error >= 0) std::snprintf(err, sizeof err, "%.2e", r.error);
  std::printf("%-8s %-11s %-10s %10.2f %11.3g  %-28s %9.3gx %9.3gx %10s\n", r.what.c_str(), r.backend.c_str(),
              r.mode.c_str(), r.ms, r.rate, ceil, r.cpu1, r.cpu_all, err);
}

nlohmann::json row_json(const Row& r) {
  return {{"op", r.what},          {"backend", r.backend},  {"mode", r.mode},           {"ms", r.ms},
          {"rate_per_s", r.rate},  {"ceiling", r.ceiling},  {"ceiling_ms", r.ceiling_ms},
          {"fraction_of_ceiling", r.ceiling_ms > 0 ? r.ceiling_ms / r.ms : -1.0},
          {"speedup_vs_cpu_1_thread", r.cpu1},              {"speedup_vs_cpu_all", r.cpu_all},
          {"rel_l2_vs_cpu_slice", r.error}};
}

// GPU rows through the operator interfaces (host transfers included): gl-compute and others.
void interface_rows(const Args& a, const std::string& b, const OatGeometry& gf, const OatGeometry& gm, double updates,
                    double patches, std::vector<Row>& rows) {
  for (FbpRead read : {FbpRead::texture, FbpRead::shared}) try {  // both reads side by side
      if (!a.fbp) break;
      FbpOptions fo;
      fo.read = read;
      auto fbp = BackendRegistry<Fbp>::instance().create(b);
      fbp->configure(gf, fo);
      const auto p = pattern(gf.data_size(), 0.37);
      std::vector<double> img(gf.grid.count());
      fbp->reconstruct(p, img);  // warm-up: shader compilation
      const double ms = best_ms(a.reps, [&] { fbp->reconstruct(p, img); }, [&] { fbp->synchronize(); });
      rows.push_back({"FBP", b, std::string(enum_name(kFbpReadNames, read)) + "*", ms, updates / (ms * 1e-3)});
    } catch (const UnavailableError& e) {
      std::printf("%s FBP read %s: unavailable (%s)\n", b.c_str(), std::string(enum_name(kFbpReadNames, read)).c_str(),
                  e.what());
    }
  if (!a.model) return;
  ModelOptions mo;
  auto model = BackendRegistry<Model>::instance().create(b);
  model->configure(gm, mo);
  const auto x = pattern(gm.grid.count(), 0.11), y = pattern(gm.data_size(), 0.37);
  std::vector<double> u(gm.data_size()), alpha(gm.grid.count());
  model->forward(x, u);
  const double fms = best_ms(a.reps, [&] { model->forward(x, u); }, [&] { model->synchronize(); });
  const double ams = best_ms(a.reps, [&] { model->adjoint(y, alpha); }, [&] { model->synchronize(); });
  rows.push_back({"H_int", b, "exact*", fms, patches / (fms * 1e-3)});
  rows.push_back({"H_intT", b, "exact*", ams, patches / (ams * 1e-3)});
}

// One PLS iteration (one H and one Hᵀ, the CG's vector work and the host transfers) through the
// backend's Model, as `tomoraster run` does: the time of iterations 1…n less that of 0, over n.
double pls_iteration_ms(const Args& a, const std::string& b, const OatGeometry& gm) {
  if (a.pls_iterations <= 0) return 0;
  auto model = BackendRegistry<Model>::instance().create(b);
  model->configure(gm, ModelOptions{});
  const auto u = pattern(gm.data_size(), 0.37);
  auto run = [&](int n) {
    PlsOptions o;
    o.iterations = n;
    return best_ms(1, [&] { (void)run_pls(*model, gm.grid, u, o); }, [&] { model->synchronize(); });
  };
  const double none = run(0), some = run(a.pls_iterations);
  return (some - none) / a.pls_iterations;
}


// One PLS-int iteration on every GPU backend's Model (measured, host transfers included) against
// the cpu's on one thread and on all (one H_int and one H_intT at the extrapolated rates).
void pls_rows(const Args& a, const OatGeometry& gm, double patches, const CpuRates& cpu, nlohmann::json& out) {
  if (!a.model || cpu.forward[0] <= 0 || cpu.adjoint[0] <= 0) return;
  const double cpu1 = (patches / cpu.forward[0] + patches / cpu.adjoint[0]) * 1e3;
  const double cpu_all = (patches / cpu.forward[1] + patches / cpu.adjoint[1]) * 1e3;
  std::printf("PLS-int iteration, cpu (extrapolated): %.0f ms on one thread, %.0f ms on all\n", cpu1, cpu_all);
  out["pls_int_iteration"]["cpu_1_thread_ms"] = cpu1;
  out["pls_int_iteration"]["cpu_all_ms"] = cpu_all;
  for (const std::string& b : gpu_backends(a)) try {
      const double ms = pls_iteration_ms(a, b, gm);
      if (ms <= 0) continue;
      std::printf("PLS-int iteration, %s: %.1f ms (%d iterations timed, host transfers included), %.3gx the cpu on "
                  "one thread, %.3gx on all (paper ~%.0fx; target <= 300 ms on the paper scene)\n",
                  b.c_str(), ms, a.pls_iterations, cpu1 / ms, cpu_all / ms, kSeedPlsIntSpeedup);
      out["pls_int_iteration"][b] = {{"ms", ms}, {"speedup_vs_cpu_1_thread", cpu1 / ms}, {"speedup_vs_cpu_all", cpu_all / ms}};
      if (b == "cuda") cuda_pls_breakdown(a, gm, out);
    } catch (const std::exception& e) {
      std::printf("PLS-int iteration, %s failed: %s\n", b.c_str(), e.what());
    }
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  runtime_options().progress = false;
  const OatGeometry gf = scene(a, a.fbp_rings, a.fbp_views), gm = scene(a, a.model_rings, a.model_views);
  const double updates = static_cast<double>(gf.grid.count()) * gf.transducer_count();
  const OatGeometry one = scene(a, 1, 1);  // every transducer sees the same shells: count one
  const double patches = InterpolationStages(one, ModelOptions{}).patch_count() * gm.transducer_count();
  std::printf("oat bench, our scene (not the paper's): %dx%dx%d voxels of %g mm, R = %g mm, %g MHz, K = %d\n",
              a.dims[0], a.dims[1], a.dims[2], a.voxel, a.radius, a.fs, gf.time.samples);
  std::printf("FBP: %dx%d transducers, %.3g voxel-transducer updates; H_int: %dx%d transducers, %.3g shell patches\n",
              a.fbp_rings, a.fbp_views, updates, a.model_rings, a.model_views, patches);
  nlohmann::json out;
  out["scene"] = {{"dims", a.dims}, {"voxel_mm", a.voxel}, {"radius_mm", a.radius}, {"fs_mhz", a.fs},
                  {"samples", gf.time.samples}, {"fbp_transducers", {a.fbp_rings, a.fbp_views}},
                  {"model_transducers", {a.model_rings, a.model_views}}, {"fbp_updates", updates},
                  {"model_patches", patches}};
  const CpuRates cpu = cpu_rates(a, gf);
  out["cpu"] = {{"fbp_updates_per_s", cpu.fbp}, {"forward_patches_per_s", cpu.forward},
                {"adjoint_patches_per_s", cpu.adjoint}, {"all_threads", cpu.all_label},
                {"subset", {a.cpu_rings, a.cpu_views}}};
  std::vector<Row> rows;
  for (const std::string& b : gpu_backends(a)) try {
      if (a.pls_only) break;
      if (b == "cuda") {
        cuda_rows(a, gf, gm, updates, patches, rows, out);
        continue;
      }
      interface_rows(a, b, gf, gm, updates, patches, rows);
    } catch (const std::exception& e) {
      std::printf("%s failed: %s\n", b.c_str(), e.what());
      out["failures"].push_back({{"backend", b}, {"what", e.what()}});
    }
  for (Row& r : rows) {
    const double* c = r.what == "FBP" ? cpu.fbp : r.what == "H_int" ? cpu.forward : cpu.adjoint;
    r.cpu1 = c[0] > 0 ? r.rate / c[0] : 0;
    r.cpu_all = c[1] > 0 ? r.rate / c[1] : 0;
    out["runs"].push_back(row_json(r));
  }
  std::printf("\n%-8s %-11s %-10s %10s %11s  %-28s %10s %10s %10s\n", "op", "backend", "mode", "ms", "rate /s",
              "of the ceiling it is bound by", "vs cpu 1t", "vs cpu all", "vs cpu");
  for (const Row& r : rows) print_row(r);
  std::printf("rate: FBP voxel-transducer updates/s (GAPAT ~%.1e per GPU), H_int/H_intT shell patches/s; cpu "
              "figures extrapolated from %dx%d transducers; * = through the operator interface (host transfers "
              "included); + = bench-only kernel; vs cpu: FBP image rel. L2 against the cpu on the middle z-slice; paper: FBP ~%.0fx, PLS-int "
              "~%.0fx over its CPU code\n",
              kGapatUpdatesPerS, a.cpu_rings, a.cpu_views, kSeedFbpSpeedup, kSeedPlsIntSpeedup);
  for (const Row& r : rows)
    if (r.what == "FBP")
      std::printf("FBP %s %s: %.2fx GAPAT's rate\n", r.backend.c_str(), r.mode.c_str(), r.rate / kGapatUpdatesPerS);
  pls_rows(a, gm, patches, cpu, out);
  out["anchors"] = {{"gapat_updates_per_s", kGapatUpdatesPerS}, {"seed_fbp_speedup", kSeedFbpSpeedup},
                    {"seed_pls_int_speedup", kSeedPlsIntSpeedup}};
  if (!a.json.empty()) {
    bench::write_report(a.json, out);
    std::printf("wrote %s\n", a.json.c_str());
  }
  return 0;
}
