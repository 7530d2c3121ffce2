// bench_oat_sph: H_sph and H_sphᵀ ([Wang2013]'s spherical-voxel model) in one run, on OUR scene
// (64³ voxels of 0.4 mm, 32×64 point transducers on Rˢ = 65 mm, 20 MHz, 128 frequencies; not the
// paper's sizes): per-call time on one GPU with the vectors resident, in phasor updates/s (one per
// face point × voxel × frequency) against the compute ceiling probed in the same run (bench-only:
// __sincosf + complex multiply-adds in the kernel's mix) and against the paper's layout (bench-only:
// a thread per frequency, a __sincosf per term) timed beside it; one and two GPUs through the
// SphModel interface (host copies included in both) and the two-GPU speed-up (target ≥ 1.8×);
// every backend against our cpu reference on all cores and on one core (transducer subsets, the
// work is exactly linear in the transducers, extrapolated) beside the paper's ≈ 250× (PLS-sph on
// 8 GPUs vs its sequential CPU code).
// Flags: --small (12³ voxels, 4×8 transducers, 32 frequencies: cpu + llvmpipe, the two-rank row
//        on host threads), --reps 3, --gpus 2, --json FILE.
#include <algorithm>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/harness.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/sph_run.hpp"
#include "compute/oat/sph_spectrum.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/core/device.hpp"
#include "bench/cuda/oat/sph_timing.hpp"
#endif

using namespace tomo;
using namespace tomo::oat;

namespace {

constexpr double kSeedPlsSphSpeedup = 250;
using cd = std::complex<double>;

struct Args {
  bool small = false;
  int reps = 3;
  std::string gpus = "2";
  std::string json;
  int n = 64, rings = 32, views = 64, frequencies = 128, cpu_rings = 2, cpu_views = 8;
  double voxel = 0.4, radius = 65.0, fs = 20.0;
};

Args parse_args(int argc, char** argv) {
  Args a;
  bench::Cli cli("bench_oat_sph", "oat H_sph/H_sphT per call, vs the compute ceiling, cpu, and on two GPUs");
  CLI::App& app = cli.app();
  app.add_flag("--small", a.small, "12^3 voxels, 4x8 transducers, 32 frequencies (cpu + software GL)");
  app.add_option("--reps", a.reps, "timed repetitions (best kept)")->capture_default_str();
  app.add_option("--gpus", a.gpus, "devices of the several-GPU rows (\"2\", \"0,1\"; \"\" = none)")->capture_default_str();
  cli.parse(argc, argv);
  if (a.small) a.n = 12, a.voxel = 1.0, a.rings = 4, a.views = 8, a.frequencies = 32, a.cpu_rings = 2, a.cpu_views = 2, a.radius = 25;
  a.reps = std::max(1, a.reps);
  a.json = cli.json_path();
  return a;
}

OatGeometry scene(const Args& a, int rings, int views) {
  OatGeometry g;
  g.grid = Grid3::centred({a.n, a.n, a.n}, {a.voxel, a.voxel, a.voxel});
  set_rings_views(g, rings, views, a.radius);
  g.c0_mm_per_us = 1.5;
  g.time = covering_time_axis(g, a.fs, 1.0);
  return g;
}

SphOptions options(const Args& a, const OatGeometry& g) {
  SphSetup s;
  s.frequencies = a.frequencies;
  SphOptions o;
  o.setup = SphSetup::resolve(g, s, 0);
  o.setup.validate(g, "bench_oat_sph");
  return o;
}

// Best of reps host-visible times (ms) of one forward and one adjoint through the interface.
std::pair<double, double> time_model(SphModel& m, std::span<const double> x, std::span<const cd> y, int reps) {
  std::vector<cd> hx(y.size());
  std::vector<double> hty(x.size());
  auto sync = [&] { m.synchronize(); };
  m.forward(x, hx);  // warm-up
  m.adjoint(y, hty);
  std::vector<double> f, b;
  for (int r = 0; r < reps; ++r) {
    f.push_back(bench::time_ms([&] { m.forward(x, hx); }, sync));
    b.push_back(bench::time_ms([&] { m.adjoint(y, hty); }, sync));
  }
  return {bench::best_of(f), bench::best_of(b)};
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  const OatGeometry g = scene(a, a.rings, a.views);
  const SphOptions o = options(a, g);
  const double updates = double(g.transducer_count()) * o.setup.face_points() * double(g.grid.count()) * o.setup.frequencies;
  std::vector<double> x(g.grid.count(), 1.0);
  std::vector<cd> y(o.setup.data_size(g), cd(1.0, -0.5));
  nlohmann::json rows = nlohmann::json::array();
  std::printf("bench_oat_sph: H_sph / H_sph^T, %d^3 voxels of %.1f mm, %dx%d transducers, %d frequencies "
              "(%.3f..%.3f MHz), point faces: %.3g phasor updates per call\n",
              a.n, a.voxel, a.rings, a.views, o.setup.frequencies, o.setup.f_mhz(g, 0),
              o.setup.f_mhz(g, o.setup.frequencies - 1), updates);
  std::printf("%-42s %10s %12s %10s %10s %10s\n", "row", "ms", "G upd/s", "vs ceiling", "vs cpu", "vs 1 core");
  // cpu_ms: our cpu reference on all cores; cpu1_ms: on one core (the paper's CPU code was sequential).
  auto row = [&](const std::string& name, double ms, double ceiling_ms, double cpu_ms, double cpu1_ms,
                 nlohmann::json extra = {}) {
    const double rate = updates / (ms * 1e-3);
    auto ratio = [&](double ref) { return ref > 0 ? str_cat(int(ref / ms + 0.5), "x") : std::string("-"); };
    std::printf("%-42s %10.3f %12.3g %10s %10s %10s\n", name.c_str(), ms, rate * 1e-9,
                ceiling_ms > 0 ? str_cat(int(100 * ceiling_ms / ms + 0.5), " %").c_str() : "-", ratio(cpu_ms).c_str(),
                ratio(cpu1_ms).c_str());
    nlohmann::json r = {{"row", name}, {"ms", ms}, {"updates_per_s", rate}};
    if (ceiling_ms > 0) r["fraction_of_ceiling"] = ceiling_ms / ms;
    if (cpu_ms > 0) r["speedup_vs_cpu"] = cpu_ms / ms;
    if (cpu1_ms > 0) r["speedup_vs_cpu_one_core"] = cpu1_ms / ms;
    if (extra.is_object()) r.update(extra);
    rows.push_back(r);
  };

  // cpu reference on a transducer subset, scaled by Q/Q_subset (the work is linear in Q).
  const OatGeometry gs = scene(a, a.cpu_rings, a.cpu_views);
  SphOptions os = o;
  os.setup.frequencies = o.setup.frequencies;
  auto cpu = make_sph_model("cpu", "", gs, os);
  std::vector<cd> ys(os.setup.data_size(gs), cd(1.0, -0.5));
  const auto [cf, cb] = time_model(*cpu, x, ys, a.reps);
  const double scale = double(g.transducer_count()) / gs.transducer_count();
  const double cpu_f = cf * scale, cpu_b = cb * scale;
  // and on one core, on the first 2 transducers of the subset
  const OatGeometry g1 = scene(a, 1, 2);
  SphOptions o1 = os;
  o1.threads = 1;
  auto cpu1 = make_sph_model("cpu", "", g1, o1);
  std::vector<cd> y1(o1.setup.data_size(g1), cd(1.0, -0.5));
  const auto [c1f, c1b] = time_model(*cpu1, x, y1, 1);
  const double cpu1_f = c1f * double(g.transducer_count()) / g1.transducer_count();
  const double cpu1_b = c1b * double(g.transducer_count()) / g1.transducer_count();
  row("cpu forward (all cores, extrap.)", cpu_f, 0, 0, cpu1_f, {{"describe", cpu->describe()}});
  row("cpu adjoint (all cores, extrap.)", cpu_b, 0, 0, cpu1_b);
  row("cpu forward (1 core, extrap.)", cpu1_f, 0, 0, 0);
  row("cpu adjoint (1 core, extrap.)", cpu1_b, 0, 0, 0);

  double cuda_1f = 0, cuda_1b = 0;
#ifdef TOMO_HAVE_CUDA
  if (tomo::cuda::have_device()) {
    const CudaSphTimes t = time_cuda_sph(g, o, x, y, a.reps);
    const double ceiling_ms = updates / (t.probe_updates / (t.probe_ms * 1e-3)) * 1e3;
    std::printf("compute ceiling (bench-only probe): %.1f G phasor updates/s\n", t.probe_updates / (t.probe_ms * 1e-3) * 1e-9);
    row("cuda forward (1 GPU, resident)", t.forward_ms, ceiling_ms, cpu_f, cpu1_f, {{"seed_speedup", kSeedPlsSphSpeedup}});
    row("cuda adjoint (1 GPU, resident)", t.adjoint_ms, ceiling_ms, cpu_b, cpu1_b, {{"seed_speedup", kSeedPlsSphSpeedup}});
    row("cuda forward, paper's layout (bench only)", t.seed_forward_ms, ceiling_ms, cpu_f, cpu1_f, {{"rel_l2_vs_ours", t.seed_rel_l2}});
    row("cuda adjoint, paper's layout (bench only)", t.seed_adjoint_ms, ceiling_ms, cpu_b, cpu1_b);
    std::printf("ours vs the paper's layout: forward %.2fx, adjoint %.2fx faster (forward results differ by %.2g)\n",
                t.seed_forward_ms / t.forward_ms, t.seed_adjoint_ms / t.adjoint_ms, t.seed_rel_l2);
    rows.push_back({{"row", "probe"}, {"updates_per_s", t.probe_updates / (t.probe_ms * 1e-3)}});
  }
#endif
  for (const std::string& name : BackendRegistry<SphModel>::instance().available_names()) {
    if (name == "cpu") continue;
    auto m = make_sph_model(name, "", g, o);
    const auto [f, b] = time_model(*m, x, y, a.reps);
    row(name + " forward (1 device, host io)", f, 0, cpu_f, cpu1_f);
    row(name + " adjoint (1 device, host io)", b, 0, cpu_b, cpu1_b);
    if (name == "cuda") cuda_1f = f, cuda_1b = b;
  }
  // Several devices: cuda over NCCL; with --small and no GPU, the cpu ranks stand in.
  const std::string multi = cuda_1f > 0 ? "cuda" : (a.small ? "cpu" : "");
  if (!multi.empty() && !a.gpus.empty()) {
    try {
      auto m = make_sph_model(multi, a.gpus, g, o);
      const auto [f, b] = time_model(*m, x, y, a.reps);
      const double f1 = multi == "cuda" ? cuda_1f : cf * scale, b1 = multi == "cuda" ? cuda_1b : cb * scale;
      row(multi + " forward (--gpus " + a.gpus + ", host io)", f, 0, cpu_f, cpu1_f, {{"speedup_vs_one", f1 / f}});
      row(multi + " adjoint (--gpus " + a.gpus + ", host io)", b, 0, cpu_b, cpu1_b, {{"speedup_vs_one", b1 / b}});
      std::printf("several devices (%s): speed-up over one %.2fx forward, %.2fx adjoint (target >= 1.8x)\n",
                  m->describe().c_str(), f1 / f, b1 / b);
    } catch (const std::exception& e) {
      std::printf("several devices: skipped (%s)\n", e.what());
    }
  }
  std::printf("paper: PLS-sph on 8 Tesla C1060 ~%.0fx its CPU code\n", kSeedPlsSphSpeedup);
  bench::write_report(a.json, {{"bench", "oat_sph"}, {"updates_per_call", updates}, {"rows", rows},
                               {"frequencies", o.setup.frequencies}, {"transducers", g.transducer_count()},
                               {"voxels", g.grid.count()}});
  return 0;
}
