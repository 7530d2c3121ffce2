// bench_fdk: RabbitCT back-projection speed ([Hofmann2010]) for L = 128…1024 from 496 projections of
// 1248×960 on every available GPU backend, beside [Hofmann2010] Table 4, Zinsser & Keck (GTX 680) and
// the texture-fetch ceiling measured in the same run; PSNR vs the cpu reference at a small size
// (consistent analytic problem) and at the full sizes (--psnr-sizes) on a strided subset of
// z-slices (the cpu reference of the whole 1024³ volume would take too long).
// Flags: --sizes 128,256,512,1024 --projections 496 --detector 1248x960 --pixel-mm 0.32
//        --reps 2 --psnr-L 128 --psnr-sizes 512,1024 --psnr-slices 8 --backends cuda,gl
//        --quick (sizes 128,512, 1 rep, PSNR at 512 unless given) --json FILE
//        --projector [--projector-L 256 --projector-views 360 --projector-detector 512x512
//        --projector-reps 5 --cpu-views 4 --dump DIR --no-sweep --sweep-only --projector-settings LIST
//        --no-exact-transpose]: the projector pair and the
//        iterative algorithms instead (fdk_bench_projector.cpp)
//        --b-variants [--b-cases 256,rabbit --b-reps 3 --b-only PARTS --b-sweep-top 3
//        --b-dump DIR]: candidate kernels of the
//        projector pair's B side by side (fdk_bench_bvariants.cpp)
//        --pipeline [--pipeline-cases 256,rabbit --pipeline-reps 5 --pipeline-chunk 32]: the cuda
//        FDK pipeline and its stages, the cuFFT filter fused and separate (fdk_bench_pipeline.cpp)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <array>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/fdk_bench_accuracy.hpp"
#include "bench/fdk_bench_bvariants.hpp"
#include "bench/fdk_bench_pipeline.hpp"
#include "bench/fdk_bench_projector.hpp"
#include "bench/harness.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/simulate.hpp"
#ifdef TOMO_HAVE_CUDA
#include "bench/cuda/fdk/fetch_ceiling.hpp"
#endif

using namespace tomo;
using namespace tomo::fdk;

namespace {

namespace accuracy = tomo::fdk::bench_accuracy;
using accuracy::psnr_vs_cpu;
using accuracy::Reference;
using accuracy::References;

struct Args {
  std::vector<int> sizes{128, 256, 512, 1024};
  int projections = 496, sx = 1248, sy = 960;
  double pixel_mm = 0.32;
  int reps = 2;
  int psnr_L = 128;
  std::vector<int> psnr_sizes{512, 1024};  // full-size PSNR vs cpu on a slice subset; empty: none
  int psnr_slices = 8;
  std::vector<std::string> backends;  // empty: every available non-cpu backend
  std::string json;
  bool projector = false;  // --projector: the projector pair and the iterations instead
  bench_projector::Options proj;
  bool b_variants = false;  // --b-variants: B's candidate kernels instead
  bench_bvariants::Options bvar;
  bool pipeline = false;  // --pipeline: the cuda FDK pipeline's stages instead
  bench_pipeline::Options pipe;
};

// The command line; --quick sets sizes 128,512, 1 rep and PSNR at 512 where those flags are not
// given. A bad line prints the reason and exits 2.
Args parse_args(int argc, char** argv) {
  Args a;
  bool quick = false;
  std::string detector;
  bench::Cli cli("bench_fdk", "RabbitCT back-projection speed and accuracy on every GPU backend");
  CLI::App& app = cli.app();
  app.add_option("--sizes", a.sizes, "volume sizes L")->delimiter(',')->capture_default_str();
  app.add_option("--projections", a.projections, "number of projections")->capture_default_str();
  app.add_option("--detector", detector, "detector WxH (1248x960)");
  app.add_option("--pixel-mm", a.pixel_mm, "detector pixel pitch")->capture_default_str();
  app.add_option("--reps", a.reps, "timed repetitions (best kept)")->capture_default_str();
  app.add_option("--psnr-L", a.psnr_L, "volume size of the small accuracy problem")->capture_default_str();
  app.add_option("--psnr-sizes", a.psnr_sizes, "sizes with a full-size PSNR vs cpu")->delimiter(',');
  app.add_option("--psnr-slices", a.psnr_slices, "z-slices of the full-size PSNR")->capture_default_str();
  app.add_option("--backends", a.backends, "backends (default: every available non-cpu)")->delimiter(',');
  app.add_flag("--quick", quick, "sizes 128,512, 1 rep, PSNR at 512");
  std::string proj_detector;
  app.add_flag("--b-variants", a.b_variants, "time candidate kernels of the projector pair's B instead");
  app.add_option("--b-cases", a.bvar.cases, "--b-variants: 256 and/or rabbit")->capture_default_str();
  app.add_option("--b-reps", a.bvar.reps, "--b-variants: timed runs (median)")->capture_default_str();
  app.add_option("--b-only", a.bvar.only, "--b-variants: comma-separated name parts (default: every variant)");
  app.add_option("--b-sweep-top", a.bvar.sweep_top, "--b-variants: block shapes of this many fastest")
      ->capture_default_str();
  app.add_option("--b-dump", a.bvar.dump, "--b-variants: folder for astra_bp_variants.py");
  app.add_flag("--pipeline", a.pipeline, "time the cuda FDK pipeline stage by stage instead");
  app.add_option("--pipeline-cases", a.pipe.cases, "--pipeline: 256 and/or rabbit")->capture_default_str();
  app.add_option("--pipeline-reps", a.pipe.reps, "--pipeline: timed runs (median)")->capture_default_str();
  app.add_option("--pipeline-chunk", a.pipe.chunk, "--pipeline: projections per step (1..64)")->capture_default_str();
  app.add_flag("--projector", a.projector, "time the projector pair and one SIRT/CGLS iteration instead");
  app.add_option("--projector-L", a.proj.L, "--projector: volume size")->capture_default_str();
  app.add_option("--projector-views", a.proj.views, "--projector: views over 360 deg")->capture_default_str();
  app.add_option("--projector-detector", proj_detector, "--projector: detector WxH (512x512)");
  app.add_option("--projector-reps", a.proj.reps, "--projector: timed runs and iterations")->capture_default_str();
  app.add_option("--cpu-views", a.proj.cpu_views, "--projector: views the cpu rows run (0: none)")
      ->capture_default_str();
  app.add_option("--dump", a.proj.dump, "--projector: folder for the arrays (astra_side_by_side.py)");
  app.add_flag("!--no-sweep", a.proj.sweep, "--projector: skip the block-shape sweep");
  app.add_flag("--sweep-only", a.proj.sweep_only, "--projector: only the block-shape sweep");
  app.add_option("--projector-settings", a.proj.settings,
                 "--projector: cuda settings to time, e.g. hardware_one,exact_half (default: all four)");
  app.add_flag("!--no-exact-transpose", a.proj.exact_transpose,
               "--projector: skip the exact transpose and CGLS with it (atomics: slow at RabbitCT's size)");
  cli.parse(argc, argv);
  if (quick) {
    if (!app.count("--sizes")) a.sizes = {128, 512};
    if (!app.count("--reps")) a.reps = 1;
    if (!app.count("--psnr-sizes")) a.psnr_sizes = {512};
  }
  if (!detector.empty() && std::sscanf(detector.c_str(), "%dx%d", &a.sx, &a.sy) != 2) {
    std::fprintf(stderr, "bench_fdk: --detector WxH\n");
    std::exit(2);
  }
  if (!proj_detector.empty() && std::sscanf(proj_detector.c_str(), "%dx%d", &a.proj.sx, &a.proj.sy) != 2) {
    std::fprintf(stderr, "bench_fdk: --projector-detector WxH\n");
    std::exit(2);
  }
  if (a.proj.L < 2 || a.proj.L > 2048 || a.proj.views < 1 || a.proj.views > 100000 || a.proj.sx < 2 ||
      a.proj.sy < 2 || a.proj.sx > 16384 || a.proj.sy > 16384 || a.proj.reps < 1 || a.proj.cpu_views < 0) {
    std::fprintf(stderr, "bench_fdk: --projector sizes out of range\n");
    std::exit(2);
  }
  if (a.pipe.reps < 1 || a.pipe.chunk < 1 || a.pipe.chunk > 64) {
    std::fprintf(stderr, "bench_fdk: --pipeline-reps >= 1 and --pipeline-chunk 1..64\n");
    std::exit(2);
  }
  a.reps = std::max(1, a.reps);
  a.psnr_slices = std::max(1, a.psnr_slices);
  a.json = cli.json_path();
  return a;
}

// Full-size timing data: the analytic Shepp–Logan projections of a 4× coarser detector, FDK
// filtered, replicated to every 4×4 pixel block. Timing does not depend on the pixel values; the
// accuracy part below uses the consistent small problem instead.
ProjectionStack timing_data(const Args& a) {
  CArmGeometry g;
  g.projections = a.projections;
  g.sx = a.sx;
  g.sy = a.sy;
  g.pixel_mm = a.pixel_mm;
  CArmGeometry c = g;
  c.sx = std::max(2, a.sx / 4);
  c.sy = std::max(1, a.sy / 4);
  c.pixel_mm = a.pixel_mm * a.sx / c.sx;
  const ProjectionStack coarse = simulate_preprocessed(shepp_logan_3d(), c, {});
  ProjectionStack p;
  p.sx = g.sx;
  p.sy = g.sy;
  p.matrices = g.matrices();
  p.pixels.resize(p.image_size() * g.projections);
#pragma omp parallel for
  for (int n = 0; n < g.projections; ++n)
    for (int j = 0; j < g.sy; ++j)
      for (int i = 0; i < g.sx; ++i)
        p.image(n)[static_cast<std::size_t>(j) * g.sx + i] =
            coarse.image(n)[static_cast<std::size_t>(std::min(c.sy - 1, j * c.sy / g.sy)) * c.sx +
                            std::min(c.sx - 1, i * c.sx / g.sx)] / 16.0f;
  return p;
}

double seed_table4_ms(int L) {  // [Hofmann2010] Table 4, CUDA 2.1 on a QuadroFX 5600 (ms per projection)
  switch (L) {
    case 128: return 4.00;
    case 256: return 10.14;
    case 512: return 34.50;
    default: return NAN;
  }
}
double zinsser_keck_total_ms(int L) {  // Fully3D 2013, GTX 680: < 1 s at 512³, ≈ 6 s at 1024³
  return L == 512 ? 1000.0 : L == 1024 ? 6000.0 : NAN;
}

double finite_or(double x, double y) { return std::isfinite(x) ? x : y; }

std::vector<std::string> backends_to_run(const Args& a) {
  if (!a.backends.empty()) return a.backends;
  std::vector<std::string> out;
  for (const auto& n : BackendRegistry<ConeBeamBackprojector>::instance().available_names())
    if (n != "cpu") out.push_back(n);
  return out;
}

// Texture ceiling, same layered layout and launch shape as the back-projection; NAN without cuda.
double fetch_ceiling(const Args& a, nlohmann::json& out) {
  double ceiling_g = NAN;
#ifdef TOMO_HAVE_CUDA
  if (BackendRegistry<ConeBeamBackprojector>::instance().available("cuda").ok) {
    const bench::fdk::FetchCeiling c = bench::fdk::measure_fetch_ceiling(a.sx, a.sy, 32, 512);
    ceiling_g = c.gfetches_per_s;
    std::printf("texture-fetch ceiling (hardware bilinear, layered %dx%dx%d, 512^3 grid): %.1f G fetches/s\n", c.sx,
                c.sy, c.layers, ceiling_g);
    out["fetch_ceiling_gfetches_per_s"] = ceiling_g;
  }
#else
  (void)a;
  (void)out;
#endif
  return ceiling_g;
}

struct Row {
  std::string backend;
  int L;
  BackprojectTiming t;
  double psnr_hw = NAN, psnr_exact = NAN;
};

// PSNR of the timed (hardware) volume `v` and of one extra exact-interpolation run vs the
// reference; `v` is released before the extra run to keep the peak memory of one volume.
nlohmann::json psnr_row(const std::string& b, const ProjectionStack& p, const Reference& ref, VolumeF& v, Row& row) {
  const RabbitMetric hw = psnr_vs_cpu(ref, v);
  row.psnr_hw = finite_or(hw.psnr_db, 999.0);
  v = VolumeF();
  auto op = BackendRegistry<ConeBeamBackprojector>::instance().create(b);
  BackprojectorOptions o;
  o.interpolation = Interpolation::exact;
  op->configure(o);
  BackprojectTiming te;
  const RabbitMetric ex = psnr_vs_cpu(ref, reconstruct(*op, rabbit_grid(row.L), p, 62, &te));
  row.psnr_exact = finite_or(ex.psnr_db, 999.0);
  std::printf("%s at L=%d vs cpu on %zu slices: hardware PSNR %.1f dB (max %g HU), exact PSNR %.1f dB (max %g "
              "HU; exact run %.1f ms)\n",
              b.c_str(), row.L, ref.slices.size(), row.psnr_hw, hw.max_abs, row.psnr_exact, ex.max_abs, te.total_ms);
  return {{"slices", ref.slices},
          {"hardware", {{"psnr_db", row.psnr_hw}, {"rmse_hu", hw.rmse}, {"max_abs_hu", hw.max_abs}}},
          {"exact", {{"psnr_db", row.psnr_exact}, {"rmse_hu", ex.rmse}, {"max_abs_hu", ex.max_abs},
                     {"total_ms", te.total_ms}}}};
}

// Best of `reps` runs of backend `b` at L³ (default options: hardware interpolation, as RabbitCT
// entries run) plus its PSNR where a reference exists; a failure (e.g. a GL buffer limit at
// 1024³) is reported under "failures" and gives no row.
std::optional<Row> time_backend(const Args& a, const std::string& b, int L, const ProjectionStack& p,
                                const References& refs, double ceiling_g, nlohmann::json& out) {
  Row row{b, L, {}, NAN, NAN};
  row.t.total_ms = 1e30;
  nlohmann::json acc = nlohmann::json::object();
  try {
    VolumeF v;
    for (int r = 0; r < a.reps; ++r) {
      auto op = BackendRegistry<ConeBeamBackprojector>::instance().create(b);
      BackprojectTiming t;
      v = reconstruct(*op, rabbit_grid(L), p, 62, &t);
      if (t.total_ms < row.t.total_ms) row.t = t;
    }
    if (refs.count(L)) acc = psnr_row(b, p, refs.at(L), v, row);
  } catch (const std::exception& e) {
    std::printf("%s at L=%d failed: %s\n", b.c_str(), L, e.what());
    out["failures"].push_back({{"backend", b}, {"L", L}, {"what", e.what()}});
    return std::nullopt;
  }
  const BackprojectTiming& best = row.t;
  out["runs"].push_back({{"backend", b},
                         {"L", L},
                         {"total_ms", best.total_ms},
                         {"ms_per_projection", best.ms_per_projection},
                         {"gups", best.gups},
                         {"fraction_of_fetch_ceiling", std::isfinite(ceiling_g) ? best.gups / ceiling_g : -1.0},
                         {"seed_table4_ms_per_projection", finite_or(seed_table4_ms(L), -1.0)},
                         {"zinsser_keck_total_ms", finite_or(zinsser_keck_total_ms(L), -1.0)},
                         {"psnr_vs_cpu_slices", acc}});
  return row;
}

void print_table(const Args& a, const std::vector<Row>& rows, const References& refs, double ceiling_g) {
  std::printf("\nRabbitCT back-projection, %d projections %dx%d (wall-clock of the back-projection calls, "
              "transfers overlapped; loading excluded)\n",
              a.projections, a.sx, a.sy);
  std::printf("%-10s %5s %10s %9s %8s %9s | %14s %8s | %14s | %s\n", "backend", "L", "total ms", "ms/proj", "GUPS",
              "%ceiling", "seed T4 ms/proj", "speedup", "Z&K GTX680 ms", "PSNR vs cpu dB (hw / exact)");
  for (const auto& r : rows) {
    const double s4 = seed_table4_ms(r.L), zk = zinsser_keck_total_ms(r.L);
    char psnr[64] = "-";
    if (std::isfinite(r.psnr_hw)) std::snprintf(psnr, sizeof psnr, "%.1f / %.1f", r.psnr_hw, r.psnr_exact);
    std::printf("%-10s %5d %10.1f %9.3f %8.1f %8.1f%% | %14s %8s | %14s | %s\n", r.backend.c_str(), r.L, r.t.total_ms,
                r.t.ms_per_projection, r.t.gups, std::isfinite(ceiling_g) ? 100.0 * r.t.gups / ceiling_g : NAN,
                std::isfinite(s4) ? std::to_string(s4).substr(0, 5).c_str() : "-",
                std::isfinite(s4) ? (std::to_string(s4 / r.t.ms_per_projection).substr(0, 6) + "x").c_str() : "-",
                std::isfinite(zk) ? (zk == 1000.0 ? "< 1000" : "~ 6000") : "-", psnr);
  }
  if (!refs.empty())
    std::printf("PSNR: RabbitCT HU (HUScale 50000), vs the cpu backend (double) on %d evenly spaced z-slices of the "
                "same projections; hw = texture-unit bilinear (timed runs), exact = fp32 weights (one extra run)\n",
                std::min(a.psnr_slices, refs.begin()->first));
  if (std::isfinite(ceiling_g))
    std::printf("texture-fetch ceiling: %.1f G fetches/s = %.1f GUPS at one bilinear fetch per update\n", ceiling_g,
                ceiling_g);
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  runtime_options().progress = false;
  if (a.b_variants) {
    nlohmann::json out;
    const int rc = bench_bvariants::run(a.bvar, out);
    if (!a.json.empty()) bench::write_report(a.json, out);
    return rc;
  }
  if (a.pipeline) {
    nlohmann::json out;
    const int rc = bench_pipeline::run(a.pipe, out);
    if (!a.json.empty()) bench::write_report(a.json, out);
    return rc;
  }
  if (a.projector) {
    nlohmann::json out;
    const int rc = bench_projector::run(a.proj, out);
    if (!a.json.empty()) {
      bench::write_report(a.json, out);
      std::printf("wrote %s\n", a.json.c_str());
    }
    return rc;
  }
  const std::vector<std::string> backends = backends_to_run(a);
  nlohmann::json out;
  out["projections"] = a.projections;
  out["detector"] = {a.sx, a.sy};
  const double ceiling_g = fetch_ceiling(a, out);
  accuracy::small_accuracy(a.psnr_L, backends, out);

  // Speed: full RabbitCT geometry.
  std::printf("simulating %d projections of %dx%d ...\n", a.projections, a.sx, a.sy);
  const ProjectionStack p = timing_data(a);
  const accuracy::References refs = accuracy::cpu_references(a.sizes, a.psnr_sizes, a.psnr_slices, p, out);
  std::vector<Row> rows;
  for (const auto& b : backends)
    for (int L : a.sizes)
      if (auto row = time_backend(a, b, L, p, refs, ceiling_g, out)) rows.push_back(*row);

  if (!a.json.empty()) {
    bench::write_report(a.json, out);
    std::printf("wrote %s\n", a.json.c_str());
  }
  print_table(a, rows, refs, ceiling_g);
  return 0;
}
