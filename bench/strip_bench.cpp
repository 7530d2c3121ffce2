// Strip benchmark (seed 000 §5): one ML-EM iteration over 10^7 simulated events on cpu (all cores),
// cuda thread and warp granularity (and gl-compute when built), side by side with the seed's
// figures (GTX 770 / 6-core Xeon) and with a floor computed from the kernel's arithmetic and atomics.
// Usage: bench_strip [--events N] [--repeats R] [--threads T] [--skip-cpu] [--json FILE]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <omp.h>

#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/strip/mlem.hpp"
#include "compute/strip/phantom.hpp"
#include "compute/strip/simulator.hpp"

#if defined(TOMO_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

using namespace tomo::strip;

namespace {

struct Row {
  std::string backend, granularity, device;
  double best_ms = 0, median_ms = 0, upload_ms = 0, rel_l2 = 0, seed_ms = 0;
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Box and ellipse pixels per event, averaged over a subsample (the work the kernels do).
void count_work(const StripGeometry& g, const Resolution& res, const std::vector<Event>& ev, double& box,
                double& inside) {
  const auto kp = make_kernel_params<double>(g.R, res.sigma_z, res.sigma_dl);
  const auto grid = g.grid<double>();
  const std::size_t n = std::min<std::size_t>(ev.size(), 200000);
  double b = 0, in = 0;
  for (std::size_t e = 0; e < n; ++e) {
    const auto f = make_frame<double>(ev[e].z_u, ev[e].z_d, ev[e].dl, kp);
    const PixelBox pb = pixel_box(f, grid);
    for (int j = pb.j0; j <= pb.j1; ++j)
      for (int k = pb.k0; k <= pb.k1; ++k) {
        b += 1;
        if (ellipse_form(f, grid.y0 + j * grid.py - f.y, grid.z0 + k * grid.pz - f.z) <= kp.cut) in += 1;
      }
  }
  box = b / n;
  inside = in / n;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t events = 10000000;
  int repeats = 3, threads = 0;
  bool skip_cpu = false;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "%s needs a value\n", a.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (a == "--events") events = std::stoull(next());
    else if (a == "--repeats") repeats = std::max(1, std::stoi(next()));
    else if (a == "--threads") threads = std::stoi(next());
    else if (a == "--skip-cpu") skip_cpu = true;
    else if (a == "--json") json_path = next();
    else if (a == "--help" || a == "-h") {
      std::printf("bench_strip [--events N (1e7)] [--repeats R (3)] [--threads T (all)] [--skip-cpu] [--json FILE]\n");
      return 0;
    } else { std::fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  tomo::set_log_level(tomo::LogLevel::Warn);

  const StripGeometry g = StripGeometry::covering(130.0, 300.0, 4.0);  // seed Fig. 3 geometry
  const Resolution res{10.0, 40.0};
  double t0 = now_ms();
  const auto ev = simulate_phantom(g, res, StripPhantom::appendix_a(), events, 1);
  const double sim_ms = now_ms() - t0;
  double box = 0, inside = 0;
  count_work(g, res, ev, box, inside);
  std::printf("strip bench: %llu events simulated in %.0f ms; %.1f box pixels, %.1f ellipse pixels per event\n",
              (unsigned long long)events, sim_ms, box, inside);

  const double scale = double(events) / 1e7;  // seed figures are for 10^7 events
  const std::vector<double> flat(g.pixel_count(), 1.0);
  auto& reg = tomo::BackendRegistry<ListModeProjector>::instance();
  std::vector<Row> rows;
  std::vector<double> ref;
  auto measure = [&](const std::string& backend, const std::string& gran, double seed_s) {
    auto op = reg.create(backend);
    ProjectorOptions o;
    o.granularity = gran == "thread" ? Granularity::thread : Granularity::warp;
    if (gran == "warp-box") o.warp_layout = WarpLayout::box;  // the seed's Fig. 4 lane layout (cuda)
    o.threads = threads;
    op->configure(g, res, o);
    Row r{backend, gran, op->describe()};
    double t = now_ms();
    op->set_events(ev);
    r.upload_ms = now_ms() - t;
    std::vector<double> times;
    std::vector<double> first;
    for (int i = 0; i < repeats + (backend == "cpu" ? 0 : 1); ++i) {  // GPU: one warm-up iteration
      op->set_image(flat);
      t = now_ms();
      op->iterate();
      const double dt = now_ms() - t;
      if (first.empty()) first = op->image();
      if (backend != "cpu" && i == 0) continue;
      times.push_back(dt);
    }
    std::sort(times.begin(), times.end());
    r.best_ms = times.front();
    r.median_ms = times[times.size() / 2];
    if (backend == "cpu") ref = first;
    r.rel_l2 = ref.empty() ? NAN : relative_l2(first, ref);
    r.seed_ms = seed_s * 1000.0 * scale;
    rows.push_back(r);
    std::printf("  %-10s %-7s %10.2f ms (median %.2f)  rel L2 vs cpu %.2e   %s\n", backend.c_str(), gran.c_str(),
                r.best_ms, r.median_ms, r.rel_l2, r.device.c_str());
  };
  if (!skip_cpu) measure("cpu", "-", 11.87);
  for (const std::string b : {"cuda", "gl-compute"}) {
    if (!reg.available(b).ok) {
      std::printf("  %-10s not available: %s\n", b.c_str(), reg.available(b).why.c_str());
      continue;
    }
    measure(b, "thread", 0.69);
    measure(b, "warp", 0.47);
    if (b == "cuda") measure(b, "warp-box", 0.47);
  }

  // Floor from the kernel's work (see docs/strip.md): FLOPs per ellipse test and per kernel value,
  // special-function ops, and one atomicAdd per ellipse pixel.
  const double f_test = 12, f_kernel = 52, sfu_kernel = 3;
  int sms = 132;
  double clock_hz = 1.98e9;
  std::string floor_device = "assumed NVIDIA H200 (132 SMs, 1.98 GHz)";
#if defined(TOMO_HAVE_CUDA)
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0) {
    int khz = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    clock_hz = khz * 1e3;
    floor_device = "CUDA device 0 (" + std::to_string(sms) + " SMs, " + std::to_string(clock_hz / 1e9) + " GHz)";
  }
#endif
  const double peak_flops = sms * 128.0 * 2.0 * clock_hz;  // FP32 FMA lanes per SM (sm_80/90)
  const double sfu_rate = sms * 16.0 * clock_hz;           // MUFU ops per SM per clock
  const double global_atomic_rate = 54e9;                  // DESIGN.md: measured atomicAdd on the H200
  const double shared_atomic_rate = sms * 32.0 * clock_hz; // one shared-memory atomic per lane per clock
  const double N = double(events);
  const double ideal_flop_ms = N * (box * f_test + inside * f_kernel) / peak_flops * 1e3;
  const double warp_flop_ms = N * box * (f_test + f_kernel) / peak_flops * 1e3;  // lanes outside the ellipse idle
  const double sfu_ms = N * inside * sfu_kernel / sfu_rate * 1e3;
  const double global_atomic_ms = N * inside / global_atomic_rate * 1e3;
  const double shared_atomic_ms = N * inside / shared_atomic_rate * 1e3;
  const double floor_thread = std::max({ideal_flop_ms, sfu_ms, global_atomic_ms});
  const double floor_warp_box = std::max({warp_flop_ms, sfu_ms, shared_atomic_ms});
  const double floor_warp = std::max({ideal_flop_ms, sfu_ms, shared_atomic_ms});  // row layout: ellipse pixels only
  std::printf("\nfloor assumptions: %s; %.0f FLOP per ellipse test, %.0f FLOP + %.0f SFU ops per kernel value, "
              "1 atomicAdd per ellipse pixel;\n  FP32 %.1f TFLOP/s, SFU %.2f Gop/s, global atomics %.0f G/s (DESIGN.md), "
              "shared atomics %.0f G/s\n",
              floor_device.c_str(), f_test, f_kernel, sfu_kernel, peak_flops / 1e12, sfu_rate / 1e9,
              global_atomic_rate / 1e9, shared_atomic_rate / 1e9);
  std::printf("  arithmetic %.2f ms (ideal) / %.2f ms (warp SIMD, whole box), SFU %.2f ms, global atomics %.2f ms, "
              "shared atomics %.2f ms\n",
              ideal_flop_ms, warp_flop_ms, sfu_ms, global_atomic_ms, shared_atomic_ms);

  std::printf("\n%-10s %-7s %12s %12s %14s %10s %10s\n", "backend", "gran.", "ours [ms]", "seed [ms]",
              "seed/ours", "floor [ms]", "relL2");
  for (const Row& r : rows) {
    const double fl = r.backend == "cpu" ? NAN : (r.granularity == "thread" ? floor_thread : r.granularity == "warp-box" ? floor_warp_box : floor_warp);
    std::printf("%-10s %-7s %12.2f %12.1f %14.1f %10.2f %10.1e\n", r.backend.c_str(), r.granularity.c_str(), r.best_ms,
                r.seed_ms, r.seed_ms / r.best_ms, fl, r.rel_l2);
  }
  std::printf("(%llu events; seed: CPU 6-core Xeon E5-1650 v2 11.87 s, GTX 770 thread 0.69 s, warp 0.47 s per 1e7 "
              "events, scaled linearly)\n",
              (unsigned long long)events);

  if (!json_path.empty()) {
    nlohmann::json j;
    j["bench"] = "strip";
    j["events"] = events;
    j["simulate_ms"] = sim_ms;
    j["box_pixels_per_event"] = box;
    j["ellipse_pixels_per_event"] = inside;
    j["cpu_threads"] = threads > 0 ? threads : omp_get_max_threads();
    j["floor"] = {{"device", floor_device}, {"ideal_flop_ms", ideal_flop_ms}, {"warp_flop_ms", warp_flop_ms},
                  {"sfu_ms", sfu_ms}, {"global_atomic_ms", global_atomic_ms}, {"shared_atomic_ms", shared_atomic_ms},
                  {"thread_ms", floor_thread}, {"warp_ms", floor_warp}};
    for (const Row& r : rows)
      j["results"].push_back({{"backend", r.backend}, {"granularity", r.granularity}, {"device", r.device},
                              {"best_ms", r.best_ms}, {"median_ms", r.median_ms}, {"upload_ms", r.upload_ms},
                              {"rel_l2_vs_cpu", r.rel_l2}, {"seed_ms", r.seed_ms}});
    std::ofstream(json_path) << j.dump(2) << "\n";
  }
  return 0;
}
