// SAFIR benchmark ([Locans2017] §5.4, Table 2): list-mode ML-EM of 13.9 M simulated events into
// 90×90×50 voxels of 0.7 mm, 15 iterations, on cuda, gl-compute and cpu (all cores measured on a
// subset, one core extrapolated), beside the seed's 14 s (K40c, incl. I/O) and 599 s (one
// E5-2690 v3 core); the analysis at every voxel with 2/4 mm spheres beside the seed's 2.7 s;
// each GPU kernel against the atomics/gathers ceilings probed in this run; a 60-frame dynamic
// series of 5 s frames against its acquisition time. One run prints the table and writes --json.
// Usage: bench_safir [--small] [--events N] [--iterations I] [--skip-cpu] [--json FILE]
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/gl_ceilings.hpp"
#include "bench/harness.hpp"
#include "bench/safir_bench_cuda.hpp"
#include "compute/core/log.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/safir/analysis.hpp"
#include "compute/safir/list_io.hpp"
#include "compute/safir/mlem.hpp"
#include "compute/safir/sensitivity.hpp"

#if defined(TOMO_HAVE_CUDA)
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "bench/cuda/safir/probes.hpp"
#include "cuda/safir/kernels.hpp"
#endif

using namespace tomo;
using namespace tomo::safir;
using tomo::bench::Clock;
using tomo::bench::ms_since;

namespace {

constexpr double kSeedGpuS = 14.0, kSeedCpuS = 599.0, kSeedAnalysisGpuS = 2.7, kSeedAnalysisCpuS = 5.9;
constexpr double kSeedEvents = 13901607;

struct Args {
  std::uint64_t events = 13901607, cpu_events = 1000000, one_core_events = 100000, dynamic_events = 13901607;
  int iterations = 15, frames = 60, rings = 91;
  double frame_s = 5.0;
  bool small = false, skip_cpu = false;
  std::string json;
};

Args parse(int argc, char** argv) {
  Args a;
  tomo::bench::Cli cli("bench_safir", "SAFIR list-mode ML-EM and analysis: backends beside the seed's Table 2");
  auto& app = cli.app();
  app.add_flag("--small", a.small, "a size that runs in a minute on two cores without a GPU (checks the bench)");
  app.add_option("--events", a.events, "simulated events")->capture_default_str();
  app.add_option("--iterations", a.iterations, "ML-EM iterations")->capture_default_str();
  app.add_option("--cpu-events", a.cpu_events, "cpu, all cores: events of the measured iteration")->capture_default_str();
  app.add_option("--one-core-events", a.one_core_events, "cpu, one core: events of the measured iteration")->capture_default_str();
  app.add_option("--frames", a.frames, "dynamic series: frames")->capture_default_str();
  app.add_option("--dynamic-events", a.dynamic_events, "dynamic series: events over all frames")->capture_default_str();
  app.add_flag("--skip-cpu", a.skip_cpu, "do not run the cpu backend");
  cli.parse(argc, argv);
  if (a.small) {
    a.events = std::min<std::uint64_t>(a.events, 100000);
    a.cpu_events = 20000;
    a.one_core_events = 10000;
    a.iterations = std::min(a.iterations, 3);
    a.frames = 4;
    a.dynamic_events = 40000;
    a.rings = 24;  // a shorter scanner: the cpu sensitivity over all pairs takes seconds, not a minute
  }
  a.json = cli.json_path();
  return a;
}

// Voxels each event's walk visits (gathers in the forward pass = atomics in the back one).
double weights_per_event(const Scanner& sc, const ImageBox& box, std::span<const Event> ev) {
  const auto pos = sc.positions();
  const auto g = box.params<double>();
  const std::size_t n = std::min<std::size_t>(ev.size(), 100000);
  double w = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double* a = pos[ev[i].a].data();
    const double* b = pos[ev[i].b].data();
    walk_line(a, b, label_line(a, b, g), g, [&](int, double) { w += 1; });
  }
  return n ? w / n : 0.0;
}

struct Row {
  std::string backend, device, note;
  double sensitivity_ms = 0, upload_ms = 0, recon_ms = 0, analysis_ms = 0, iteration_ms = 0, corr = 0;
  bool extrapolated = false;
};

Row run_gpu(const std::string& name, const Scanner& sc, const ImageBox& box, const ListMode& lm, int iterations,
            const std::vector<double>& phantom, std::vector<double>* sens_out, std::vector<double>* image_out) {
  Row r;
  r.backend = name;
  auto op = BackendRegistry<ListModeOperator>::instance().create(name);
  op->configure(sc, box, {});
  r.device = op->describe();
  std::vector<double> s;
  r.sensitivity_ms = tomo::bench::time_ms([&] { s = compute_sensitivity(*op, sc, box); }, [&] { op->synchronize(); });
  op->set_sensitivity(s);
  r.upload_ms = tomo::bench::time_ms([&] { op->set_events(lm.events); }, [&] { op->synchronize(); });
  std::vector<double> img;
  r.recon_ms = tomo::bench::time_ms(
      [&] {
        run_mlem(*op, box.count(), 0, lm.events.size(), {iterations, false});
        img = op->image();
      },
      [&] { op->synchronize(); });
  r.iteration_ms = r.recon_ms / iterations;
  std::vector<double> t;
  for (int k = 0; k < 3; ++k)
    t.push_back(tomo::bench::time_ms([&] { (void)op->sphere_sums(1.0, 2.0); }, [&] { op->synchronize(); }));
  r.analysis_ms = tomo::bench::median_of(t);
  r.corr = correlation(img, phantom);
  if (sens_out) *sens_out = s;
  if (image_out) *image_out = img;
  return r;
}

// cpu: one iteration on `n` events with `threads`, extrapolated to all events and iterations.
Row run_cpu(int threads, std::uint64_t n, const Scanner& sc, const ImageBox& box, const ListMode& lm, int iterations,
            const std::vector<double>& s) {
  Row r;
  r.backend = threads == 1 ? "cpu, 1 core" : "cpu, all cores";
  r.extrapolated = true;
  auto op = BackendRegistry<ListModeOperator>::instance().create("cpu");
  ProjectorOptions o;
  o.threads = threads;
  op->configure(sc, box, o);
  r.device = op->describe();
  op->set_sensitivity(s);
  const std::vector<Event> part(lm.events.begin(), lm.events.begin() + std::min<std::size_t>(n, lm.events.size()));
  const double up = tomo::bench::time_ms([&] { op->set_events(part); });
  op->set_image(std::vector<double>(box.count(), 1.0));
  const double it = tomo::bench::time_ms([&] { op->iterate(); });
  const double scale = double(lm.events.size()) / double(part.size());
  r.upload_ms = up * scale;
  r.iteration_ms = it * scale;
  r.recon_ms = r.iteration_ms * iterations;
  r.analysis_ms = tomo::bench::time_ms([&] { (void)op->sphere_sums(1.0, 2.0); });
  r.note = str_cat("1 iteration on ", part.size(), " events, scaled ×", scale, " and ×", iterations);
  return r;
}


// Each GPU kernel against the ceiling it is bound by, probed in this run: the ML-EM pass does one
// gather and one atomicAdd per walked voxel (w per event); the probes do the same accesses on
// hashed 2×2 blocks of the same image without the ray tracing.
nlohmann::json ceilings(const std::vector<Row>& rows, const ImageBox& box, std::size_t n, double w, bool small) {
  nlohmann::json out = nlohmann::json::object();
  const double ops = double(n) * w;
  for (const Row& r : rows) {
    if (r.backend == "cuda") {
#if defined(TOMO_HAVE_CUDA)
      cuda::DeviceBuffer<float> img(box.count()), sink(1);
      img.fill_zero();
      const std::size_t blocks4 = std::max<std::size_t>(1, static_cast<std::size_t>(ops / 4));
      auto sync = [] { TOMO_CUDA_CHECK(cudaDeviceSynchronize()); };
      std::vector<double> ta, tg;
      for (int k = 0; k < 4; ++k) {
        ta.push_back(tomo::bench::time_ms([&] { tomo::safir::probes::launch_atomics(img.data(), box.count(), box.n[0], blocks4, nullptr); }, sync));
        tg.push_back(tomo::bench::time_ms([&] { tomo::safir::probes::launch_gathers(img.data(), box.count(), box.n[0], blocks4, sink.data(), nullptr); }, sync));
      }
      ta.erase(ta.begin());  // the first runs warm up
      tg.erase(tg.begin());
      const double atomic_rate = 4.0 * blocks4 / (tomo::bench::median_of(ta) * 1e-3);
      const double gather_rate = 4.0 * blocks4 / (tomo::bench::median_of(tg) * 1e-3);
      const double ceiling_ms = (ops / atomic_rate + ops / gather_rate) * 1e3;
      // The tiled pass (default) does one shared-memory atomic per walked voxel and one global
      // atomic per touched tile voxel: it is not bound by this ceiling, and the ratio says by how far.
      std::printf("  cuda ML-EM iteration (%s pass): %.2f ms; one global atomicAdd + one gather per walked voxel (the fused "
                  "pass) would take at least %.2f ms from probed float atomicAdd %.1f G/s and gathers %.1f G/s on 2x2 blocks "
                  "(%.0f %% of that ceiling)\n",
                  r.device.find("tiled") != std::string::npos ? "tiled" : "fused", r.iteration_ms, ceiling_ms,
                  atomic_rate * 1e-9, gather_rate * 1e-9, 100.0 * ceiling_ms / r.iteration_ms);
      out["cuda"] = {{"iteration_ms", r.iteration_ms}, {"ceiling_ms", ceiling_ms}, {"atomic_gops", atomic_rate * 1e-9},
                     {"gather_gops", gather_rate * 1e-9}, {"fraction_of_ceiling", ceiling_ms / r.iteration_ms}};
#endif
    } else if (r.backend == "gl-compute") {
      const bool fa = gl::shared_context().info().caps.float_atomics;
      const double rate = tomo::bench::atomic_gops(small ? 4096 : (1 << 22), 64, static_cast<int>(box.count()), fa) * 1e9;
      const double ceiling_ms = ops / rate * 1e3;
      std::printf("  gl-compute ML-EM iteration (%s pass): %.2f ms; one global atomicAdd per walked voxel (the fused pass) "
                  "would take at least %.2f ms from probed %s atomicAdd %.2f G/s (gathers not probed: a lower bound) "
                  "(%.0f %% of that ceiling)\n",
                  r.device.find("tiled") != std::string::npos ? "tiled" : "fused", r.iteration_ms, ceiling_ms,
                  fa ? "float" : "uint", rate * 1e-9, 100.0 * ceiling_ms / r.iteration_ms);
      out["gl-compute"] = {{"iteration_ms", r.iteration_ms}, {"ceiling_ms", ceiling_ms}, {"atomic_gops", rate * 1e-9},
                           {"fraction_of_ceiling", ceiling_ms / r.iteration_ms}};
    }
  }
  return out;
}

// A GPU backend's passes side by side (safir.pass, safir.tile_blocks_per_sm): the same events and
// sensitivity, the iterations with the final image download, the image against the first.
nlohmann::json pass_variants(const std::string& backend, const Scanner& sc, const ImageBox& box, const ListMode& lm,
                             int iterations, const std::vector<double>& s) {
  if (!BackendRegistry<ListModeOperator>::instance().available(backend).ok || s.empty()) return nullptr;
  struct Variant {
    std::string name;
    Pass pass;
    int per_sm;
  };
  std::vector<Variant> variants = {{"tiled", Pass::tiled, 2}, {"fused", Pass::fused, 2}};
  if (backend == "cuda")
    variants = {{"tiled, 2 blocks/SM (default)", Pass::tiled, 2}, {"tiled, 1 block/SM", Pass::tiled, 1}, {"fused", Pass::fused, 2}};
  std::printf("\n| %s pass | %d iterations | per iteration | vs fused | image vs default |\n|---|---|---|---|---|\n",
              backend.c_str(), iterations);
  nlohmann::json out = nlohmann::json::array();
  std::vector<double> first;
  std::vector<double> ms;
  for (const Variant& v : variants) {
    ProjectorOptions o;
    o.pass = v.pass;
    o.tile_blocks_per_sm = v.per_sm;
    auto op = BackendRegistry<ListModeOperator>::instance().create(backend);
    op->configure(sc, box, o);
    op->set_sensitivity(s);
    op->set_events(lm.events);
    op->synchronize();
    std::vector<double> img;
    const double t = tomo::bench::time_ms(
        [&] {
          run_mlem(*op, box.count(), 0, lm.events.size(), {iterations, false});
          img = op->image();
        },
        [&] { op->synchronize(); });
    if (first.empty()) first = img;
    ms.push_back(t);
    out.push_back({{"pass", v.name}, {"reconstruction_ms", t}, {"iteration_ms", t / iterations},
                   {"image_vs_default", relative_l2(img, first)}});
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    std::printf("| %s | %.1f ms | %.2f ms | %.2fx | %.2g |\n", out[i]["pass"].get<std::string>().c_str(), ms[i],
                ms[i] / iterations, ms.back() / ms[i], out[i]["image_vs_default"].get<double>());
  return out;
}

// A dynamic study (seed §5): `frames` frames of `frame_s` s, each reconstructed (same
// iterations) and analysed on `backend`, events resident on the device for the whole series.
nlohmann::json dynamic_series(const Args& a, const Scanner& sc, const ImageBox& box, const ListMode& lm,
                              const std::string& backend, const std::vector<double>& s, double iteration_ms_per_event) {
  if (backend.empty() || s.empty()) return nullptr;
  const std::size_t n = std::min<std::size_t>(a.dynamic_events, lm.events.size());
  const double acquisition_s = a.frames * a.frame_s;
  std::vector<double> t(n);
  for (std::size_t i = 0; i < n; ++i) t[i] = (i + 0.5) / n * acquisition_s;  // a constant rate over the study
  const auto frames = split_frames(t, n, acquisition_s, a.frame_s);
  auto op = BackendRegistry<ListModeOperator>::instance().create(backend);
  op->configure(sc, box, {});
  op->set_sensitivity(s);
  const std::vector<Event> ev(lm.events.begin(), lm.events.begin() + n);
  double total_ms = tomo::bench::time_ms([&] { op->set_events(ev); }, [&] { op->synchronize(); });
  total_ms += tomo::bench::time_ms(
      [&] {
        for (const Frame& f : frames) {
          run_mlem(*op, box.count(), f.first, f.count, {a.iterations, false});
          (void)op->image();
          (void)op->sphere_sums(1.0, 2.0);
        }
      },
      [&] { op->synchronize(); });
  // The seed's rate: 13.9 M events per second, 69.5 M per 5 s frame (72.7 s per frame on the K40c).
  const double seed_rate_frame_s = iteration_ms_per_event * kSeedEvents * a.frame_s * 15 * 1e-3;
  std::printf("  dynamic (%s): %zu frames of %.0f s, %zu events, %d iterations each, reconstructed and analysed in %.2f s "
              "for %.0f s of acquisition (%.0fx faster than acquired); at the seed's 13.9 M events/s a %.0f s frame "
              "would take %.2f s (seed: 72.7 s)\n",
              backend.c_str(), frames.size(), a.frame_s, n, a.iterations, total_ms * 1e-3, acquisition_s,
              acquisition_s / (total_ms * 1e-3), a.frame_s, seed_rate_frame_s);
  return {{"backend", backend}, {"frames", frames.size()}, {"frame_s", a.frame_s}, {"events", n},
          {"total_s", total_ms * 1e-3}, {"acquisition_s", acquisition_s}, {"seed_rate_frame_s", seed_rate_frame_s}};
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  Scanner sc;
  sc.rings = a.rings;
  ImageBox box;  // 90 × 90 × 50 of 0.7 mm, m_d = 1
  Phantom ph;
  ph.spheres = Phantom::derenzo(22.0);
  nlohmann::json report = {{"bench", "safir"}, {"events", a.events}, {"iterations", a.iterations},
                           {"image", box.n}, {"rings", sc.rings}, {"crystals", sc.crystals}};
  SimulationOptions so;
  so.events = a.events;
  ListMode lm;
  const double sim_ms = tomo::bench::time_ms([&] { lm = simulate(sc, ph, so); });
  std::printf("safir bench: %llu events (seed %.0f), %dx%dx%d voxels of %.1f mm, %d iterations, %d x %d crystals\n",
              static_cast<unsigned long long>(a.events), kSeedEvents, box.n[0], box.n[1], box.n[2], box.voxel_mm,
              a.iterations, sc.rings, sc.crystals);
  std::printf("  Monte-Carlo: %.0f ms on %d threads (%.1f M events/s)\n", sim_ms, omp_get_max_threads(),
              a.events / sim_ms * 1e-3);
  // I/O: the seed's 14 s include reading the events; ours from a .clm.safir file.
  const auto tmp = std::filesystem::temp_directory_path() / ("bench_safir_" + std::to_string(::getpid()) + ".clm.safir");
  write_clm_safir(tmp, lm, sc);
  const double read_ms = tomo::bench::time_ms([&] { (void)read_clm_safir(tmp, sc); });
  std::filesystem::remove(tmp);
  const double w = weights_per_event(sc, box, lm.events);
  std::printf("  read .clm.safir: %.0f ms; %.1f voxels per event walk (gathers forward, atomics back)\n", read_ms, w);
  report["simulate_ms"] = sim_ms;
  report["read_clm_ms"] = read_ms;
  report["voxels_per_event"] = w;
  const std::vector<double> phantom = ph.rasterize(box.grid()).data;

  std::vector<Row> rows;
  std::vector<double> s_ref, img_gpu;
  auto& reg = BackendRegistry<ListModeOperator>::instance();
  std::string best;
  for (const std::string name : {"cuda", "gl-compute"}) {
    if (!reg.available(name).ok) {
      std::printf("  %s: not available here (%s)\n", name.c_str(), reg.available(name).why.c_str());
      continue;
    }
    std::vector<double> img;
    rows.push_back(run_gpu(name, sc, box, lm, a.iterations, phantom, s_ref.empty() ? &s_ref : nullptr, &img));
    if (best.empty()) best = name;
    if (!img_gpu.empty()) rows.back().note = str_cat("image vs ", best, ": relative L2 ", relative_l2(img, img_gpu));
    else img_gpu = img;
  }
  if (!a.skip_cpu) {
    auto cpu = reg.create("cpu");
    cpu->configure(sc, box, {});
    std::vector<double> s;
    const double sens_ms = tomo::bench::time_ms([&] { s = compute_sensitivity(*cpu, sc, box); });
    if (s_ref.empty()) s_ref = s;
    rows.push_back(run_cpu(0, a.cpu_events, sc, box, lm, a.iterations, s));
    rows.back().sensitivity_ms = sens_ms;
    rows.push_back(run_cpu(1, a.one_core_events, sc, box, lm, a.iterations, s));
  }
  const double scale_to_seed = kSeedEvents / double(a.events);
  std::printf("\n| backend | sensitivity | upload+sort | %d iterations | per iteration | vs seed K40c 14 s | vs seed 1 core 599 s | "
              "analysis 2/4 mm | vs seed 2.7 s | corr. phantom |\n|---|---|---|---|---|---|---|---|---|---|\n",
              a.iterations);
  nlohmann::json jrows = nlohmann::json::array();
  for (const Row& r : rows) {
    // The seed's figures are for 13.9 M events and 15 iterations: compare the time of that work.
    const double work_s = (r.upload_ms + r.recon_ms * 15.0 / a.iterations) * scale_to_seed * 1e-3 + read_ms * scale_to_seed * 1e-3;
    std::printf("| %s%s | %.0f ms | %.1f ms | %.1f ms | %.2f ms | %.3gx | %.3gx | %.2f ms | %.3gx | %s |\n", r.backend.c_str(),
                r.extrapolated ? " (extrapolated)" : "", r.sensitivity_ms, r.upload_ms, r.recon_ms, r.iteration_ms,
                kSeedGpuS / work_s, kSeedCpuS / work_s, r.analysis_ms, kSeedAnalysisGpuS * 1e3 / r.analysis_ms,
                r.extrapolated ? "-" : str_cat(r.corr).c_str());
    jrows.push_back({{"backend", r.backend}, {"device", r.device}, {"sensitivity_ms", r.sensitivity_ms},
                     {"upload_sort_ms", r.upload_ms}, {"reconstruction_ms", r.recon_ms}, {"iteration_ms", r.iteration_ms},
                     {"analysis_ms", r.analysis_ms}, {"seed_equivalent_s", work_s}, {"speedup_vs_seed_k40c", kSeedGpuS / work_s},
                     {"speedup_vs_seed_core", kSeedCpuS / work_s}, {"speedup_analysis_vs_seed_k40c", kSeedAnalysisGpuS * 1e3 / r.analysis_ms},
                     {"speedup_analysis_vs_seed_cpu", kSeedAnalysisCpuS * 1e3 / r.analysis_ms},
                     {"correlation_phantom", r.corr}, {"extrapolated", r.extrapolated}, {"note", r.note}});
  }
  for (const Row& r : rows) std::printf("  %s: %s%s%s\n", r.backend.c_str(), r.device.c_str(), r.note.empty() ? "" : "; ", r.note.c_str());
  std::printf("  (seed-equivalent time: upload+sort + 15 iterations + .clm.safir read, scaled to 13.9 M events; targets on one H200: "
              "15 iterations <= 500 ms, analysis <= 20 ms)\n");
  report["rows"] = jrows;
  report["ceilings"] = ceilings(rows, box, lm.events.size(), w, a.small);
  for (const std::string name : {"cuda", "gl-compute"}) report["passes"][name] = pass_variants(name, sc, box, lm, a.iterations, s_ref);
  report["cuda_breakdown"] = tomo::safir::bench::cuda_breakdown(sc, box, lm.events, w, a.iterations);
  double per_event = 0;
  for (const Row& r : rows)
    if (r.backend == best) per_event = r.iteration_ms / double(lm.events.size());
  report["dynamic"] = dynamic_series(a, sc, box, lm, best, s_ref, per_event);
  tomo::bench::write_report(a.json, report);
  return 0;
}
