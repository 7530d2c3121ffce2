// bench_musr's cuda call breakdown (musr_bench_cuda.hpp): the shipped kernels in float and double
// at one size, each call split into its kernel (CUDA events over back-to-back launches) and the
// host's share, with its error against the cpu χ², beside bench-only call probes of an empty
// kernel (bench/cuda/musr/cuda_probes.hpp).
#include "bench/musr_bench_cuda.hpp"

#ifdef TOMO_HAVE_CUDA
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench/cuda/musr/cuda_probes.hpp"
#include "bench/harness.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/musr/codegen_cuda.hpp"
#include "compute/musr/fit_problem.hpp"
#include "cuda/musr/cuda_chi2_evaluator.hpp"

namespace tomo::musr::musr_bench {

// One call of the shipped kernels at `bins` per detector, in float and double: the call (median
// of reps), its kernel alone, the same with the gradient, the floor, and the error against the
// cpu reference.
void cuda_breakdown(const Args& args, int bins, double copy_gbps, nlohmann::json& report) {
  const Problem prob = make_problem(args.detectors, bins);
  const FitData& data = prob.setup.data;
  std::vector<double> p0;
  for (const auto& fp : prob.msr.params) p0.push_back(fp.value);
  std::vector<double> gref(p0.size()), g(p0.size());
  auto cpu = BackendRegistry<Chi2Evaluator>::instance().create("cpu");
  cpu->configure({});
  cpu->upload(data);
  const double ref = cpu->evaluate_with_gradient(p0, gref);
  double gmax = 0.0;
  for (double x : gref) gmax = std::max(gmax, std::fabs(x));
  const int np = cuda_chi2_source(data, false).np;
  const CallProbe probe = measure_call_overhead(np, 300);
  std::printf("\n# one χ² call at %d × %d bins of the shipped cuda kernels (µs): kernel = device time a launch over %d back-to-back "
              "launches, host = call − kernel; floor = bytes read / copy bandwidth; errors against the cpu (double)\n",
              args.detectors, bins, args.launches);
  std::printf("# bench-only probes, empty kernel (median of 300, µs): launch+sync %.1f | memcpy H2D + launch + memcpy D2H %.1f | "
              "by-value params + mapped result + sync %.1f | + poll instead of sync %.1f\n",
              probe.launch_sync_us, probe.memcpy_path_us, probe.args_sync_us, probe.args_poll_us);
  std::printf("%-36s %8s %8s %7s %9s %9s %8s %8s %8s %10s %10s\n", "kernels", "call", "kernel", "host", "grad_call", "grad_kern",
              "floor", "k/floor", "c/floor", "rel_err", "grad_err");
  report["call_probes_us"] = {{"launch_sync", probe.launch_sync_us}, {"memcpy_path", probe.memcpy_path_us},
                              {"args_mapped_sync", probe.args_sync_us}, {"args_mapped_poll", probe.args_poll_us}, {"np", np}};
  for (const bool single : {true, false}) {
    auto ev = make_cuda_chi2_evaluator();
    EvaluatorOptions o;
    o.single_precision = single;
    ev->configure(o);
    ev->upload(data);
    ev->evaluate(p0);
    std::vector<double> tv, tg;
    for (int r = 0; r < args.reps; ++r) tv.push_back(bench::time_ms([&] { ev->evaluate(p0); }) * 1e3);
    for (int r = 0; r < args.reps; ++r) tg.push_back(bench::time_ms([&] { ev->evaluate_with_gradient(p0, g); }) * 1e3);
    const double call = bench::median_of(tv), gcall = bench::median_of(tg);
    const double kern = kernel_us(*ev, p0, false, args.launches), gkern = kernel_us(*ev, p0, true, args.launches);
    const double value = ev->evaluate_with_gradient(p0, g);
    double gerr = 0.0;
    for (std::size_t i = 0; i < g.size(); ++i) gerr = std::max(gerr, std::fabs(g[i] - gref[i]));
    const double rel = std::fabs(value - ref) / std::fabs(ref), grel = gmax > 0 ? gerr / gmax : 0.0;
    const double bytes = static_cast<double>(data.bins()) * (poisson_errors(data) ? 1.0 : 2.0) * (single ? 4.0 : 8.0);
    const double floor_us = copy_gbps > 0 ? bytes / (copy_gbps * 1e9) * 1e6 : 0.0;
    const std::string label = single ? "cuda (float)" : "cuda (double)";
    std::printf("%-36s %8.1f %8.1f %7.1f %9.1f %9.1f %8.1f %8.2f %8.2f %10.1e %10.1e\n", label.c_str(), call, kern, call - kern, gcall,
                gkern, floor_us, floor_us > 0 ? kern / floor_us : 0.0, floor_us > 0 ? call / floor_us : 0.0, rel, grel);
    std::fflush(stdout);
    report["call_breakdown"].push_back({{"bins_per_detector", bins}, {"detectors", args.detectors}, {"design", label},
                                        {"describe", ev->describe()}, {"call_us", call}, {"kernel_us", kern},
                                        {"grad_call_us", gcall}, {"grad_kernel_us", gkern}, {"floor_us", floor_us},
                                        {"rel_err_chi2", rel}, {"rel_err_grad", grel}});
  }
  std::printf("# target: one χ² call (float) at 16 × 426601 bins ≤ 20 µs\n");
}

}  // namespace tomo::musr::musr_bench
#endif
