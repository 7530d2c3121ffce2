// bench_fdk_projector: the cone-beam projector pair of the iterative algorithms (A: ray-driven
// forward projection, Aᵀ: its exact adjoint) on every available backend: time per call and per
// view, rays and trilinear samples per second (the sample count from the cpu's ray model), and
// the relative L2 error against the cpu reference on a small problem, all in one run; beside them
// the trilinear-march ceilings of bench/gl_ceilings.hpp on the same volume size (one hardware-filtered
// fetch in a fragment shader, 8 texelFetch in a fragment shader, 8 SSBO loads in a compute shader).
// Flags: --L 256 --views 64 --detector 512x384 --step 0.5 --reps 3 --backends gl,gl-compute
//        --check-L 40 --quick (L 128, 32 views, 1 rep) --json FILE
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/gl_ceilings.hpp"
#include "bench/harness.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/fdk/forward_projector.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/ray_model.hpp"

using namespace tomo;
using namespace tomo::fdk;

namespace {

struct Args {
  int L = 256, views = 64, sx = 512, sy = 384;
  double step = 0.5;
  int reps = 3;
  int check_L = 40;
  std::vector<std::string> backends;  // empty: every available non-cpu backend
  std::string json;
};

Args parse_args(int argc, char** argv) {
  Args a;
  bool quick = false;
  std::string detector;
  bench::Cli cli("bench_fdk_projector", "cone-beam forward/adjoint projector speed and accuracy on every backend");
  CLI::App& app = cli.app();
  app.add_option("--L", a.L, "volume size L (L³ voxels over 256 mm)")->capture_default_str();
  app.add_option("--views", a.views, "number of views (C-arm short scan)")->capture_default_str();
  app.add_option("--detector", detector, "detector WxH (512x384)");
  app.add_option("--step", a.step, "ray step in voxels")->capture_default_str();
  app.add_option("--reps", a.reps, "timed repetitions (median kept)")->capture_default_str();
  app.add_option("--check-L", a.check_L, "volume size of the accuracy problem vs cpu")->capture_default_str();
  app.add_option("--backends", a.backends, "backends (default: every available non-cpu)")->delimiter(',');
  app.add_flag("--quick", quick, "L 128, 32 views, 1 rep");
  cli.parse(argc, argv);
  if (quick) {
    if (!app.count("--L")) a.L = 128;
    if (!app.count("--views")) a.views = 32;
    if (!app.count("--reps")) a.reps = 1;
  }
  if (!detector.empty() && std::sscanf(detector.c_str(), "%dx%d", &a.sx, &a.sy) != 2) {
    std::fprintf(stderr, "bench_fdk_projector: --detector WxH\n");
    std::exit(2);
  }
  if (a.L < 2 || a.views < 1 || a.sx < 1 || a.sy < 1 || !(a.step > 0) || a.check_L < 2) {
    std::fprintf(stderr, "bench_fdk_projector: sizes, views and step must be positive\n");
    std::exit(2);
  }
  a.reps = std::max(1, a.reps);
  a.json = cli.json_path();
  return a;
}

// RabbitCT's C-arm with `views` projections on an sx×sy detector of the same physical size.
ConeGeometry geometry(int L, int views, int sx, int sy) {
  CArmGeometry c;
  c.projections = views;
  c.pixel_mm = c.pixel_mm * c.sx / sx;
  c.sx = sx;
  c.sy = sy;
  return {rabbit_grid(L), sx, sy, c.matrices()};
}

std::vector<float> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& e : v) e = d(rng);
  return v;
}

// Σ over rays of the samples the ray model takes (every backend takes the same).
double sample_count(const ConeGeometry& g, double step_mm) {
  double total = 0;
  for (int n = 0; n < g.views(); ++n) {
    const ViewRays r = view_rays(g.grid, g.matrices[n], n);
#pragma omp parallel for reduction(+ : total)
    for (int j = 0; j < g.sy; ++j)
      for (int i = 0; i < g.sx; ++i) total += ray_samples(r, g.grid, i, j, step_mm).count;
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  runtime_options().progress = false;
  auto& registry = BackendRegistry<ConeBeamProjector>::instance();
  std::vector<std::string> names = a.backends;
  if (names.empty())
    for (const std::string& n : registry.names())
      if (n != "cpu" && registry.available(n).ok) names.push_back(n);
  const ProjectorOptions options{.step_voxels = a.step};

  // Accuracy: each backend against the cpu on a small problem (A and Aᵀ).
  const ConeGeometry small = geometry(a.check_L, 16, 96, 72);
  const auto xs = random_vector(small.grid.count(), 1), ys = random_vector(small.views() * small.image_size(), 2);
  std::vector<float> a_ref(ys.size()), b_ref(xs.size());
  {
    auto cpu = registry.create("cpu");
    cpu->configure(options);
    cpu->setup(small);
    cpu->forward(xs, a_ref);
    cpu->back(ys, b_ref);
  }

  const ConeGeometry g = geometry(a.L, a.views, a.sx, a.sy);
  const double samples = sample_count(g, step_mm(g.grid, options));
  const auto x = random_vector(g.grid.count(), 3), y = random_vector(g.views() * g.image_size(), 4);
  std::vector<float> ax(y.size()), aty(x.size());
  nlohmann::json rows = nlohmann::json::array();
  std::printf("%-11s %6s %6s %11s %12s %12s %14s %11s %11s\n", "backend", "L", "views", "detector", "A ms/view",
              "Aᵀ ms/view", "A Gsamples/s", "A rel L2", "Aᵀ rel L2");
  for (const std::string& name : names) {
    auto check = registry.create(name);
    check->configure(options);
    check->setup(small);
    std::vector<float> a_small(ys.size()), b_small(xs.size());
    check->forward(xs, a_small);
    check->back(ys, b_small);
    const double err_a = relative_l2(a_small, a_ref), err_b = relative_l2(b_small, b_ref);
    check.reset();

    auto op = registry.create(name);
    op->configure(options);
    op->setup(g);
    op->forward(x, ax);  // warm-up: first-use costs (uploads, shader caches) stay out of the times
    op->back(y, aty);
    std::vector<double> tf, tb;
    for (int r = 0; r < a.reps; ++r) {
      tf.push_back(bench::time_ms([&] { op->forward(x, ax); }, [&] { op->synchronize(); }));
      tb.push_back(bench::time_ms([&] { op->back(y, aty); }, [&] { op->synchronize(); }));
    }
    const double f_ms = bench::median_of(tf), b_ms = bench::median_of(tb);
    std::printf("%-11s %6d %6d %5dx%-5d %12.3f %12.3f %14.2f %11.2e %11.2e\n", name.c_str(), a.L, a.views, a.sx, a.sy,
                f_ms / a.views, b_ms / a.views, samples / (f_ms * 1e6), err_a, err_b);
    rows.push_back({{"backend", name},
                    {"describe", op->describe()},
                    {"L", a.L},
                    {"views", a.views},
                    {"detector", {a.sx, a.sy}},
                    {"step_voxels", a.step},
                    {"forward_ms", f_ms},
                    {"back_ms", b_ms},
                    {"forward_ms_per_view", f_ms / a.views},
                    {"back_ms_per_view", b_ms / a.views},
                    {"samples", samples},
                    {"forward_gsamples_per_s", samples / (f_ms * 1e6)},
                    {"back_gsamples_per_s", samples / (b_ms * 1e6)},
                    {"forward_rel_l2_vs_cpu", err_a},
                    {"back_rel_l2_vs_cpu", err_b},
                    {"check_L", a.check_L}});
  }
  // The march ceilings, G samples/s: 2L samples per line through an L³ volume (if GL runs here).
  nlohmann::json ceilings = nlohmann::json::object();
  if (gl::availability().ok) {
    const int L = std::min(a.L, 512);
    const std::vector<float> sigma = random_vector(static_cast<std::size_t>(L) * L * L, 5);
    const int samples = 2 * L, tiles = 4;
    for (const auto& [name, mode] : {std::pair{"fragment_filtered", bench::March::FragmentFiltered},
                                     std::pair{"fragment_texelfetch", bench::March::FragmentTexelFetch},
                                     std::pair{"compute_ssbo_loads", bench::March::ComputeLoads}}) {
      const double gs = bench::march_glines(mode, {L, L, L}, sigma, samples, tiles) * samples;
      ceilings[name] = gs;
      std::printf("march ceiling %-20s %8.2f G samples/s (L %d)\n", name, gs, L);
    }
  }
  bench::write_report(a.json, {{"bench", "fdk_projector"}, {"runs", rows}, {"march_ceilings_gsamples_per_s", ceilings}});
  return 0;
}
