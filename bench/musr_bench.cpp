// bench_musr: [Locans2017] §4 Table 1 — μSR fits of the 16-detector eq. (5) histograms at
// 16 × 85 320 … 16 × 426 601 bins on every available backend (cpu on all cores; cuda and
// gl-compute each in double and float): upload (the first includes the NVRTC compile), one χ²
// evaluation with and without gradient, and the full fit (MIGRAD + HESSE of the msr through musr's minimiser), beside
// [Locans2017]'s K40c and Xeon E5-2690 v3 times and the bandwidth floor of one evaluation (bytes it
// reads / the device's copy bandwidth measured in this run).
// Then (musr_bench_cuda.cpp), at one size (16 × 426 601 by default), one call of the shipped cuda
// kernels in float and double split into the kernel (CUDA events over back-to-back launches) and
// the rest, with each one's error against the cpu χ², beside bench-only probes (bench/cuda/musr:
// the device's copy bandwidth and calls of an empty kernel by the ways of passing parameters and
// waiting for the result).
// Flags: --sizes 85320,106650,142200,213300,426601 --detectors 16 --reps 30 --backends cpu,cuda
//        --fit-sizes (GPU backends, default: all) --cpu-fit-sizes 85320 (cpu: at most 5 reps)
//        --breakdown-size 426601 (0: none; default the largest size) --launches 200
//        --small (sizes 2000, 3 reps, fits at 2000) --theory eq5|dynkt|dynexpkt --json FILE
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/harness.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/error.hpp"
#include "compute/musr/codegen_cuda.hpp"
#include "compute/musr/fit_problem.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/minimizer.hpp"
#include "compute/musr/msr.hpp"
#include "compute/musr/simulator.hpp"
#include "renderer/gl/engine.hpp"
#include "bench/gl_ceilings.hpp"
#include "bench/musr_bench_cuda.hpp"
#ifdef TOMO_HAVE_CUDA
#include "bench/cuda/musr/cuda_probes.hpp"
#endif

using namespace tomo;
using namespace tomo::musr;
using namespace tomo::musr::musr_bench;

Problem tomo::musr::musr_bench::make_problem(int detectors, int bins, const std::string& theory) {
  Eq5Config c;
  c.detectors = detectors;
  c.bins = bins + c.first_good + 1;
  c.dt_us = 10.0 / bins;
  const PsiBinFile file = simulate_eq5(c);
  Problem p;
  std::string text = eq5_msr(c, "bench_eq5");
  // The dynamic Kubo–Toyabe families in their Volterra regime (musrfit's tables, not the
  // closed-form approximations): ν₀ = 0.5 MHz, hopping 0.3 MHz; for dynExpKTLF that needs
  // ν < 5a and ω₀ < 30a, which the eq. (5) rate (0.315 µs⁻¹ at the start) satisfies.
  if (theory == "dynkt" || theory == "dynexpkt") {
    auto swap = [&](const std::string& from, const std::string& to) {
      const auto at = text.find(from);
      if (at == std::string::npos) throw Error("bench_musr: the eq5 msr lacks '" + from + "'");
      text.replace(at, from.size(), to);
    };
    const char* function = theory == "dynkt" ? "dynGssKTLF" : "dynExpKTLF";
    swap("simpleGss  1          (rate)", std::string(function) + "  fun2  1  fun3  (frequency damping hopping-rate)");
    swap("fun1 = gamma_mu * par2\n", "fun1 = gamma_mu * par2\nfun2 = 0.5\nfun3 = 0.3\n");
  } else if (theory != "eq5") {
    throw InputError("bench_musr: --theory is eq5, dynkt or dynexpkt, not '" + theory + "'");
  }
  p.msr = parse_msr(text, "bench_eq5.msr");
  p.setup = prepare_fit(p.msr, [&](const MsrRun&) { return file; });
  return p;
}

namespace {

// [Locans2017] Table 1: bins per detector, minimiser iterations, E5-2690 v3 (8 threads) and K40c seconds.
struct SeedRow {
  int bins, iterations;
  double cpu_s, k40_s;
};
const SeedRow kSeed[] = {{85320, 8833, 226, 11}, {106650, 8538, 274, 11.5}, {142200, 9319, 396, 13.8},
                         {213300, 8052, 513, 15.1}, {426601, 6313, 798, 17.9}};

Args parse_args(int argc, char** argv) {
  Args a;
  bool small = false;
  bench::Cli cli("bench_musr",
                 "musr χ² evaluation and full fit ([Locans2017] §4, Table 1) on every backend; then the shipped cuda kernels "
                 "(float, double) split into kernel and call, beside bench-only probes (copy bandwidth, empty-kernel calls)");
  CLI::App& app = cli.app();
  app.add_option("--sizes", a.sizes, "bins per detector")->delimiter(',')->capture_default_str();
  app.add_option("--fit-sizes", a.fit_sizes, "sizes of the full fit on GPU backends (default: all)")->delimiter(',');
  app.add_option("--cpu-fit-sizes", a.cpu_fit_sizes, "sizes of the full fit on cpu")->delimiter(',')->capture_default_str();
  app.add_option("--detectors", a.detectors, "detectors (runs)")->capture_default_str();
  app.add_option("--reps", a.reps, "repetitions of one evaluation (median)")->capture_default_str();
  app.add_option("--backends", a.backends, "backends (default: every available)")->delimiter(',');
  app.add_option("--breakdown-size", a.breakdown_size, "bins per detector of the cuda call breakdown (0: none; default: the largest size)");
  app.add_option("--launches", a.launches, "back-to-back launches the kernel time is averaged over")->capture_default_str();
  app.add_option("--theory", a.theory, "eq5; dynkt or dynexpkt: the relaxation as dynGssKTLF or dynExpKTLF from host tables")->capture_default_str();
  app.add_flag("--small", small, "CI size: 16 × 2000 bins, 3 reps");
  cli.parse(argc, argv);
  if (a.theory != "eq5" && a.theory != "dynkt" && a.theory != "dynexpkt") {
    std::fprintf(stderr, "bench_musr: --theory is eq5, dynkt or dynexpkt, not '%s'\n", a.theory.c_str());
    std::exit(2);
  }
  a.json = cli.json_path();
  if (small) {
    a.sizes = {2000};
    a.cpu_fit_sizes = {2000};
    a.reps = std::min(a.reps, 3);
  }
  if (a.fit_sizes.empty()) a.fit_sizes = a.sizes;
  if (a.breakdown_size < 0) a.breakdown_size = a.sizes.empty() ? 0 : *std::max_element(a.sizes.begin(), a.sizes.end());
  return a;
}

// Backend variants: the GPU backends run twice (double, then float data and arithmetic).
struct Variant {
  std::string backend, label;
  bool single = false;
};

std::vector<Variant> variants(const Args& a) {
  auto& reg = BackendRegistry<Chi2Evaluator>::instance();
  std::vector<std::string> names = a.backends.empty() ? reg.names() : a.backends;
  std::vector<Variant> out;
  for (const auto& n : names) {
    if (!reg.available(n).ok) {
      std::printf("# %s: not available here (%s)\n", n.c_str(), reg.available(n).why.c_str());
      continue;
    }
    if (n == "cpu") {
      out.push_back({n, "cpu (all cores)", false});
    } else {
      out.push_back({n, n + " (double)", false});
      out.push_back({n, n + " (float)", true});
    }
  }
  return out;
}



const SeedRow* seed_row(int bins) {
  for (const auto& r : kSeed)
    if (r.bins == bins) return &r;
  return nullptr;
}


}  // namespace

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  nlohmann::json report;
  report["bench"] = "musr";
  report["targets"] = {{"chi2_eval_us_16x426601", 20.0}, {"full_fit_s", 0.5}};
  double copy_gbps = 0.0, gl_copy_gbps = 0.0;
#ifdef TOMO_HAVE_CUDA
  if (BackendRegistry<Chi2Evaluator>::instance().available("cuda").ok) copy_gbps = measure_copy_gbps(std::size_t(1) << 30);
#endif
  if (BackendRegistry<Chi2Evaluator>::instance().available("gl-compute").ok) {
    gl::shared_context().make_current();
    gl_copy_gbps = bench::copy_tbps(std::size_t(1) << 26) * 1e3;
  }
  report["copy_gbps"] = {{"cuda", copy_gbps}, {"gl_compute", gl_copy_gbps}};
  std::printf("# device copy bandwidth (read+write): cuda %.1f GB/s, gl-compute %.1f GB/s\n", copy_gbps, gl_copy_gbps);
  std::printf("# targets (one H200): one χ² evaluation of 16 × 426601 bins ≤ 20 µs, the full fit ≤ 0.5 s\n");
  std::printf("# theory: %s\n", args.theory == "eq5"     ? "eq. (5), simpleGss"
                                 : args.theory == "dynkt" ? "eq. (5) with dynGssKTLF (tables from the host each call)"
                                                          : "eq. (5) with dynExpKTLF (tables from the host each call)");
  std::printf("%-9s %-16s %9s %10s %10s %9s %8s %9s %6s %8s %8s %8s\n", "bins/det", "backend", "upload_ms", "chi2_us",
              "grad_us", "floor_us", "x_floor", "fit_s", "evals", "chi2/ndf", "K40c_s", "E5_s");
  const auto vars = variants(args);
  for (int bins : args.sizes) {
    const Problem prob = make_problem(args.detectors, bins, args.theory);
    const FitData& data = prob.setup.data;
    std::vector<double> p0;
    for (const auto& fp : prob.msr.params) p0.push_back(fp.value);
    const SeedRow* seed = seed_row(bins);
    for (const Variant& v : vars) {
      const auto& fits = v.backend == "cpu" ? args.cpu_fit_sizes : args.fit_sizes;
      const bool fit = std::find(fits.begin(), fits.end(), bins) != fits.end();
      const int reps = v.backend == "cpu" ? std::min(args.reps, 5) : args.reps;
      auto ev = BackendRegistry<Chi2Evaluator>::instance().create(v.backend);
      EvaluatorOptions o;
      o.single_precision = v.single;
      ev->configure(o);
      const double upload_ms = bench::time_ms([&] { ev->upload(data); }, [&] { ev->synchronize(); });
      std::vector<double> g(p0.size());
      std::vector<double> t_value, t_grad;
      ev->evaluate(p0);  // warm-up
      // A call returns its χ² on every backend, so nothing is left to wait for after it.
      for (int r = 0; r < reps; ++r) t_value.push_back(bench::time_ms([&] { ev->evaluate(p0); }));
      for (int r = 0; r < reps; ++r) t_grad.push_back(bench::time_ms([&] { ev->evaluate_with_gradient(p0, g); }));
      const double value_us = bench::median_of(t_value) * 1e3, grad_us = bench::median_of(t_grad) * 1e3;
      // Bytes one evaluation reads: y (cuda where σ follows the Poisson rule) or (y, 1/σ²) per
      // bin, in the kernel's real type.
      const double values = v.backend == "cuda" && poisson_errors(data) ? 1.0 : 2.0;
      const double bytes = static_cast<double>(data.bins()) * values * (v.backend != "cpu" && !v.single ? 8.0 : 4.0);
      const double bw = v.backend == "cuda" ? copy_gbps : v.backend == "gl-compute" ? gl_copy_gbps : 0.0;
      const double floor_us = bw > 0 ? bytes / (bw * 1e9) * 1e6 : 0.0;
      double fit_s = 0.0, chi2_ndf = 0.0;
      int evals = 0;
      bool converged = false;
      if (fit) {
        FitResult res;
        fit_s = bench::time_ms([&] { res = run_fit(*ev, prob.msr, prob.setup.used, data.statistic); }) * 1e-3;
        evals = res.evaluations;
        converged = res.converged;
        chi2_ndf = res.fmin / static_cast<double>(static_cast<long long>(data.bins()) - res.free_count());
      }
      std::printf("%-9d %-16s %9.1f %10.1f %10.1f %9.1f %8.2f %9.3f %6d %8.4f %8.1f %8.0f\n", bins, v.label.c_str(), upload_ms, value_us,
                  grad_us, floor_us, floor_us > 0 ? value_us / floor_us : 0.0, fit_s, evals, chi2_ndf, seed ? seed->k40_s : 0.0,
                  seed ? seed->cpu_s : 0.0);
      std::fflush(stdout);
      report["rows"].push_back({{"bins_per_detector", bins}, {"detectors", args.detectors}, {"theory", args.theory}, {"fitted_bins", data.bins()},
                                {"backend", v.backend}, {"variant", v.label}, {"describe", ev->describe()},
                                {"upload_ms", upload_ms}, {"chi2_us", value_us}, {"chi2_grad_us", grad_us},
                                {"bytes_per_eval", bytes}, {"floor_us", floor_us}, {"fit_s", fit_s}, {"fit_evaluations", evals},
                                {"fit_converged", converged}, {"chi2_per_ndf", chi2_ndf},
                                {"seed_k40c_s", seed ? seed->k40_s : 0.0}, {"seed_e5_2690_s", seed ? seed->cpu_s : 0.0},
                                {"seed_iterations", seed ? seed->iterations : 0}});
    }
  }
#ifdef TOMO_HAVE_CUDA
  if (args.breakdown_size > 0 && BackendRegistry<Chi2Evaluator>::instance().available("cuda").ok)
    cuda_breakdown(args, args.breakdown_size, copy_gbps, report);
  else if (args.breakdown_size > 0)
    std::printf("# cuda call breakdown: cuda not available here\n");
#endif
  bench::write_report(args.json, report);
  return 0;
}
