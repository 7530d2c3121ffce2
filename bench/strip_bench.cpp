// Strip benchmark ([Bialas2015] §5): one ML-EM iteration over 10^7 simulated events on cpu (all cores),
// cuda thread and warp granularity (and gl-compute when built), side by side with the seed's
// figures (GTX 770 / 6-core Xeon) and with a floor computed from the kernel's arithmetic and atomics.
// Usage: bench_strip [--events N] [--repeats R] [--threads T] [--skip-cpu] [--json FILE]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <omp.h>

#include "bench/harness.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/strip/mlem.hpp"
#include "compute/strip/phantom.hpp"
#include "compute/strip/simulator.hpp"

#if defined(TOMO_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

using namespace tomo::strip;
using tomo::bench::Clock;
using tomo::bench::ms_since;

namespace {

struct Args {
  std::uint64_t events = 10000000;
  int repeats = 3, threads = 0;
  bool skip_cpu = false;
  std::string json;
};

Args parse_args(int argc, char** argv) {
  Args a;
  tomo::bench::Cli cli("bench_strip", "strip ML-EM iteration: backends beside the seed's figures and a floor");
  cli.app().add_option("--events", a.events, "simulated events")->capture_default_str();
  cli.app().add_option("--repeats", a.repeats, "timed iterations per backend")->capture_default_str();
  cli.app().add_option("--threads", a.threads, "cpu threads (0: all)");
  cli.app().add_flag("--skip-cpu", a.skip_cpu, "do not run the cpu backend");
  cli.parse(argc, argv);
  a.repeats = std::max(1, a.repeats);
  a.json = cli.json_path();
  return a;
}

struct Row {
  std::string backend, granularity, device;
  double best_ms = 0, median_ms = 0, upload_ms = 0, rel_l2 = 0, seed_ms = 0;
};

// The simulated data and the work per event the kernels do.
struct Workload {
  StripGeometry g = StripGeometry::covering(130.0, 300.0, 4.0);  // seed Fig. 3 geometry
  Resolution res{10.0, 40.0};
  std::vector<Event> events;
  double simulate_ms = 0, box = 0, inside = 0;  // box and ellipse pixels per event
};

// Box and ellipse pixels per event, averaged over a subsample (the work the kernels do).
void count_work(Workload& w) {
  const auto kp = make_kernel_params<double>(w.g.R, w.res.sigma_z, w.res.sigma_dl);
  const auto grid = w.g.grid<double>();
  const std::size_t n = std::min<std::size_t>(w.events.size(), 200000);
  double b = 0, in = 0;
  for (std::size_t e = 0; e < n; ++e) {
    const auto f = make_frame<double>(w.events[e].z_u, w.events[e].z_d, w.events[e].dl, kp);
    const PixelBox pb = pixel_box(f, grid);
    for (int j = pb.j0; j <= pb.j1; ++j)
      for (int k = pb.k0; k <= pb.k1; ++k) {
        b += 1;
        if (ellipse_form(f, grid.y0 + j * grid.py - f.y, grid.z0 + k * grid.pz - f.z) <= kp.cut) in += 1;
      }
  }
  w.box = b / n;
  w.inside = in / n;
}

Workload simulate(std::uint64_t events) {
  Workload w;
  const auto t0 = Clock::now();
  w.events = simulate_phantom(w.g, w.res, StripPhantom::appendix_a(), events, 1);
  w.simulate_ms = ms_since(t0);
  count_work(w);
  std::printf("strip bench: %llu events simulated in %.0f ms; %.1f box pixels, %.1f ellipse pixels per event\n",
              (unsigned long long)events, w.simulate_ms, w.box, w.inside);
  return w;
}

// Times one backend at one granularity ("-", "thread", "warp"); the cpu row's first
// image becomes `ref`, the reference of every later row.
Row measure(const Workload& w, const Args& a, const std::string& backend, const std::string& gran, double seed_s,
            std::vector<double>& ref) {
  auto op = tomo::BackendRegistry<ListModeProjector>::instance().create(backend);
  ProjectorOptions o;  // the one place this bench sets projector options
  o.granularity = gran == "thread" ? Granularity::thread : Granularity::warp;
  o.threads = a.threads;
  op->configure(w.g, w.res, o);
  Row r{backend, gran, op->describe()};
  auto t = Clock::now();
  op->set_events(w.events);
  r.upload_ms = ms_since(t);
  const std::vector<double> flat(w.g.pixel_count(), 1.0);
  std::vector<double> times, first;
  for (int i = 0; i < a.repeats + (backend == "cpu" ? 0 : 1); ++i) {  // GPU: one warm-up iteration
    op->set_image(flat);
    t = Clock::now();
    op->iterate();
    const double dt = ms_since(t);
    if (first.empty()) first = op->image();
    if (backend != "cpu" && i == 0) continue;
    times.push_back(dt);
  }
  r.best_ms = tomo::bench::best_of(times);
  r.median_ms = tomo::bench::median_of(times);
  if (backend == "cpu") ref = first;
  r.rel_l2 = ref.empty() ? NAN : relative_l2(first, ref);
  r.seed_ms = seed_s * 1000.0 * (double(a.events) / 1e7);  // seed figures are for 10^7 events
  std::printf("  %-10s %-7s %10.2f ms (median %.2f)  rel L2 vs cpu %.2e   %s\n", backend.c_str(), gran.c_str(),
              r.best_ms, r.median_ms, r.rel_l2, r.device.c_str());
  return r;
}

std::vector<Row> measure_all(const Workload& w, const Args& a) {
  auto& reg = tomo::BackendRegistry<ListModeProjector>::instance();
  std::vector<Row> rows;
  std::vector<double> ref;
  if (!a.skip_cpu) rows.push_back(measure(w, a, "cpu", "-", 11.87, ref));
  for (const std::string b : {"cuda", "gl-compute"}) {
    if (!reg.available(b).ok) {
      std::printf("  %-10s not available: %s\n", b.c_str(), reg.available(b).why.c_str());
      continue;
    }
    rows.push_back(measure(w, a, b, "thread", 0.69, ref));
    rows.push_back(measure(w, a, b, "warp", 0.47, ref));
  }
  return rows;
}

// The device the floor assumes: CUDA device 0 when there is one, else the H200 we test on.
struct FloorDevice {
  int sms = 132;
  double clock_hz = 1.98e9;
  std::string name = "assumed NVIDIA H200 (132 SMs, 1.98 GHz)";
};

FloorDevice floor_device() {
  FloorDevice d;
#if defined(TOMO_HAVE_CUDA)
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0) {
    int khz = 0;
    cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    d.clock_hz = khz * 1e3;
    d.name = "CUDA device 0 (" + std::to_string(d.sms) + " SMs, " + std::to_string(d.clock_hz / 1e9) + " GHz)";
  }
#endif
  return d;
}

// Floor from the kernel's work (see docs/strip.md): FLOPs per ellipse test and per kernel value,
// special-function ops, and one atomicAdd per ellipse pixel.
struct Floor {
  std::string device;
  double ideal_flop_ms, warp_flop_ms, sfu_ms, global_atomic_ms, shared_atomic_ms;
  double thread_ms, warp_ms;
  double ms_for(const Row& r) const {
    return r.backend == "cpu" ? NAN : r.granularity == "thread" ? thread_ms : warp_ms;
  }
};

Floor compute_floor(const Workload& w, std::uint64_t events) {
  const double f_test = 12, f_kernel = 52, sfu_kernel = 3;
  const FloorDevice d = floor_device();
  const double peak_flops = d.sms * 128.0 * 2.0 * d.clock_hz;  // FP32 FMA lanes per SM (sm_80/90)
  const double sfu_rate = d.sms * 16.0 * d.clock_hz;           // MUFU ops per SM per clock
  const double global_atomic_rate = 54e9;                      // DESIGN.md: measured atomicAdd on the H200
  const double shared_atomic_rate = d.sms * 32.0 * d.clock_hz; // one shared-memory atomic per lane per clock
  const double N = double(events);
  Floor f;
  f.device = d.name;
  f.ideal_flop_ms = N * (w.box * f_test + w.inside * f_kernel) / peak_flops * 1e3;
  f.warp_flop_ms = N * w.box * (f_test + f_kernel) / peak_flops * 1e3;  // lanes outside the ellipse idle
  f.sfu_ms = N * w.inside * sfu_kernel / sfu_rate * 1e3;
  f.global_atomic_ms = N * w.inside / global_atomic_rate * 1e3;
  f.shared_atomic_ms = N * w.inside / shared_atomic_rate * 1e3;
  f.thread_ms = std::max({f.ideal_flop_ms, f.sfu_ms, f.global_atomic_ms});
  f.warp_ms = std::max({f.ideal_flop_ms, f.sfu_ms, f.shared_atomic_ms});  // row layout: ellipse pixels only
  std::printf("\nfloor assumptions: %s; %.0f FLOP per ellipse test, %.0f FLOP + %.0f SFU ops per kernel value, "
              "1 atomicAdd per ellipse pixel;\n  FP32 %.1f TFLOP/s, SFU %.2f Gop/s, global atomics %.0f G/s (DESIGN.md), "
              "shared atomics %.0f G/s\n",
              f.device.c_str(), f_test, f_kernel, sfu_kernel, peak_flops / 1e12, sfu_rate / 1e9,
              global_atomic_rate / 1e9, shared_atomic_rate / 1e9);
  std::printf("  arithmetic %.2f ms (ideal) / %.2f ms (warp SIMD, whole box), SFU %.2f ms, global atomics %.2f ms, "
              "shared atomics %.2f ms\n",
              f.ideal_flop_ms, f.warp_flop_ms, f.sfu_ms, f.global_atomic_ms, f.shared_atomic_ms);
  return f;
}

void print_table(const std::vector<Row>& rows, const Floor& fl, std::uint64_t events) {
  std::printf("\n%-10s %-7s %12s %12s %14s %10s %10s\n", "backend", "gran.", "ours [ms]", "seed [ms]",
              "seed/ours", "floor [ms]", "relL2");
  for (const Row& r : rows)
    std::printf("%-10s %-7s %12.2f %12.1f %14.1f %10.2f %10.1e\n", r.backend.c_str(), r.granularity.c_str(), r.best_ms,
                r.seed_ms, r.seed_ms / r.best_ms, fl.ms_for(r), r.rel_l2);
  std::printf("(%llu events; seed: CPU 6-core Xeon E5-1650 v2 11.87 s, GTX 770 thread 0.69 s, warp 0.47 s per 1e7 "
              "events, scaled linearly)\n",
              (unsigned long long)events);
}

nlohmann::json report(const Args& a, const Workload& w, const Floor& f, const std::vector<Row>& rows) {
  nlohmann::json j;
  j["bench"] = "strip";
  j["events"] = a.events;
  j["simulate_ms"] = w.simulate_ms;
  j["box_pixels_per_event"] = w.box;
  j["ellipse_pixels_per_event"] = w.inside;
  j["cpu_threads"] = a.threads > 0 ? a.threads : omp_get_max_threads();
  j["floor"] = {{"device", f.device}, {"ideal_flop_ms", f.ideal_flop_ms}, {"warp_flop_ms", f.warp_flop_ms},
                {"sfu_ms", f.sfu_ms}, {"global_atomic_ms", f.global_atomic_ms}, {"shared_atomic_ms", f.shared_atomic_ms},
                {"thread_ms", f.thread_ms}, {"warp_ms", f.warp_ms}};
  for (const Row& r : rows)
    j["results"].push_back({{"backend", r.backend}, {"granularity", r.granularity}, {"device", r.device},
                            {"best_ms", r.best_ms}, {"median_ms", r.median_ms}, {"upload_ms", r.upload_ms},
                            {"rel_l2_vs_cpu", r.rel_l2}, {"seed_ms", r.seed_ms}});
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  tomo::set_log_level(tomo::LogLevel::Warn);
  const Workload w = simulate(a.events);
  const std::vector<Row> rows = measure_all(w, a);
  const Floor f = compute_floor(w, a.events);
  print_table(rows, f, a.events);
  tomo::bench::write_report(a.json, report(a, w, f, rows));
  return 0;
}
