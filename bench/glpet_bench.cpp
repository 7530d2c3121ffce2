// bench_glpet: every glpet pass beside the ceiling it is bound by, in one run. For 64³ and
// 128³ on the default geometry (two 32×32 modules, 2 mm pitch, 160 mm apart, R = 4, N = 1,
// K = 32, water cylinder) it prints the time per voxel of each pass and of a full ML-EM
// iteration for `gl` (raster: correspondence, atlas, terms, reduction, collect; forward,
// back_ratio, update), `gl-compute` and `cuda` (forward, back_ratio, update), each with the
// achieved rate, the ceiling it is bound by — measured in this run by bench/gl_ceilings.hpp
// (docs/glpet.md §6 maps pass → ceiling) — the percentage, and the paper's 8800 GTX figures.
// Above 64³ the GL backends process only the voxels of the central `--slab` z-slices of the
// full grid (their lines cross the whole volume) and are reported per processed voxel. cuda runs with its system-matrix cache ("cuda") and tracing every line
// ("cuda-trace", --no-trace skips it). cpu is timed on a voxel subset and extrapolated.
// Usage: bench_glpet [--quick] [--sizes 64,128] [--backends gl,gl-compute,cuda,cpu] [--slab 8]
//                    [--cpu-voxels 64] [--no-trace] [--json FILE]
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/core/error.hpp"
#include "compute/core/phantom.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/shutdown.hpp"
#include "renderer/gl/engine.hpp"
#include "bench/glpet_bench_gl.hpp"
#include "bench/harness.hpp"
#include "bench/glpet_bench_report.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "bench/gl/gl_pass_timings.hpp"
#include "compute/glpet/projector.hpp"

using namespace tomo;
using namespace tomo::glpet;
using namespace tomo::bench::glpet_report;

namespace {

using bench::Clock;
using bench::ms_since;

Module plane(double z, double nz) {
  Module m;
  m.centre = {0, 0, z};
  m.normal = {0, 0, nz};
  m.n_a = m.n_t = 32;
  m.pitch_a = m.pitch_t = 2.0;
  return m;
}

// The default geometry with an n³ grid over the 64 mm field of view.
SystemModel default_system(int n) {
  SystemModel s;
  s.scanner.pairs.push_back(ModulePair{{plane(-80, 1), plane(80, -1)}});
  s.grid = Grid3::centred({n, n, n}, {64.0 / n, 64.0 / n, 64.0 / n});
  Phantom att;
  Shape cyl;
  cyl.kind = Shape::Kind::Cylinder;
  cyl.semi_axes = {26, 26, 30};
  cyl.axes = rotation_zyx_deg(0, 0, -90);
  cyl.value = 0.0096;
  att.shapes.push_back(cyl);
  s.sigma_t = att.voxelize(s.grid, 1);
  s.R = 4;
  s.N = 1;
  s.K = 32;
  return s;
}

// cuda (and any other backend) through the Projector interface on the full grid.
void bench_projector(Env& env, const std::string& name, const std::string& label, const SystemModel& sys,
                     const ProjectorOptions& options, std::vector<Row>& rows) {
  auto op = BackendRegistry<Projector>::instance().create(name);
  op->configure(sys, options);
  auto x = op->make_image(), yt = op->make_lors(), y = op->make_lors(), b = op->make_image(), s = op->make_image();
  x->upload(std::vector<float>(x->size(), 1.0f));
  y->upload(std::vector<float>(y->size(), 1.0f));
  auto t0 = Clock::now();
  op->sensitivity(*s);  // what ML-EM does once before iterating (builds the cuda cache)
  op->synchronize();
  const double setup_s = ms_since(t0) / 1e3;
  op->forward(*x, *yt);  // warm-up (and ỹ for the ratio)
  op->synchronize();
  auto timed = [&](auto&& f) { return bench::time_ms(f, [&] { op->synchronize(); }); };
  const double nvox = double(sys.voxel_count());
  const double fwd = timed([&] { op->forward(*x, *yt); }) / nvox;
  const double back = timed([&] { op->back_ratio(*y, *yt, *b, nullptr); }) / nvox;
  auto x2 = op->make_image();
  x2->upload(std::vector<float>(x2->size(), 1.0f));
  const double up = timed([&] { op->mlem_update(*x2, *b, *s); }) / nvox;
  const double iter = timed([&] {
                        op->forward(*x, *yt);
                        op->back_ratio(*y, *yt, *b, nullptr);
                        op->mlem_update(*x, *b, *s);
                      }) / nvox;
  const int n = sys.grid.dims[0];
  const bool gl = env.fixed.ok;
  const double lines = lines_per_voxel(sys);
  Row f{label, "forward", n, fwd, lines, "lines"}, br{label, "back_ratio", n, back, lines, "lines"};
  Row u{label, "update", n, up, 16.0, "bytes"};
  if (gl) {
    u.bound_by = "copy bandwidth";
    u.ceil_ms_per_voxel = bound_ms(16.0, env.fixed.copy);
    if (label == "cuda") {
      // The cached system matrix (docs/glpet.md §3): (4 + 4B²)·M·N bytes per voxel, B = 2
      // for the default geometry, M = detectors per module, read once per pass.
      const double B = 2, M = double(sys.scanner.pairs[0].n_a()) * sys.scanner.pairs[0].n_t();
      const double bytes = (4 + 4 * B * B) * M * sys.N * double(sys.scanner.pairs.size());
      for (Row* r : {&f, &br}) {
        r->work_per_voxel = bytes;
        r->unit = "bytes";
        r->bound_by = "cache bytes @ copy bw";
        r->ceil_ms_per_voxel = bound_ms(bytes, env.fixed.copy);
      }
    } else {
      const MarchCeilings& mc = march_for(env, sys);
      for (Row* r : {&f, &br}) {
        r->bound_by = "compute march 8 loads";
        r->ceil_ms_per_voxel = bound_ms(lines * mc.lines.hit_fraction, mc.compute_loads);
      }
    }
  }
  Row it = composite(label, "iteration", n, {&f, &br, &u}, iter, 1.0, "voxels");
  it.setup_s = setup_s;
  for (Row* r : {&f, &br, &u, &it}) rows.push_back(*r);
}

// cpu: the elementary voxel→LOR correspondence on `count` voxels spread over the grid, one core.
void bench_cpu(const SystemModel& sys, int count, std::vector<Row>& rows) {
  const Extinction ext(sys.sigma_t);
  const auto offsets = sample_offsets(sys.N);
  std::vector<double> atlas(sys.lor_count(), 0.0), ratio(sys.lor_count(), 1.0);
  const int n = sys.grid.dims[0];
  count = std::max(1, count);
  auto voxel = [&](int c, int& i, int& j, int& k) {
    const long idx = long((double(c) + 0.5) / count * double(sys.voxel_count()));
    i = int(idx % n), j = int((idx / n) % n), k = int(idx / (long(n) * n));
  };
  auto t0 = Clock::now();
  for (int c = 0; c < count; ++c) {
    int i, j, k;
    voxel(c, i, j, k);
    for_each_line(sys, ext, offsets, i, j, k, [&](std::size_t l, double a) { atlas[l] += a; });
  }
  const double fwd = ms_since(t0) / count;
  t0 = Clock::now();
  double sink = 0;
  for (int c = 0; c < count; ++c) {
    int i, j, k;
    voxel(c, i, j, k);
    double sb = 0, ss = 0;
    for_each_line(sys, ext, offsets, i, j, k, [&](std::size_t l, double a) {
      sb += a * ratio[l];
      ss += a;
    });
    sink += sb + ss;
  }
  const double back = ms_since(t0) / count;
  if (sink < 0) std::printf("?");
  const double lines = lines_per_voxel(sys);
  for (Row r : {Row{"cpu", "forward", n, fwd, lines, "lines"}, Row{"cpu", "back_ratio", n, back, lines, "lines"},
                Row{"cpu", "iteration", n, fwd + back, 1.0, "voxels"}}) {
    r.note = "1 core, " + std::to_string(count) + " voxels, ext";
    rows.push_back(r);
  }
}

struct Options {
  std::vector<int> sizes{64, 128};
  std::vector<std::string> backends;  // empty: every available one
  int cpu_voxels = 64, slab = 8;
  std::string json_path;
  bool trace_too = true;
};

// The command line; a bad one prints the reason and exits 2.
Options parse_args(int argc, char** argv) {
  Options o;
  bool quick = false, no_trace = false;
  bench::Cli cli("bench_glpet", "every glpet pass beside the ceiling it is bound by");
  CLI::App& app = cli.app();
  app.add_option("--sizes", o.sizes, "grid sizes n (n^3)")->delimiter(',')->check(CLI::PositiveNumber);
  app.add_flag("--quick", quick, "sizes 64 (unless --sizes is given)");
  app.add_option("--backends", o.backends, "backends (default: every available one)")->delimiter(',');
  app.add_option("--cpu-voxels", o.cpu_voxels, "voxels the cpu is timed on")->check(CLI::PositiveNumber);
  app.add_option("--slab", o.slab, "z-slices the GL backends process above 64^3")->check(CLI::PositiveNumber);
  app.add_flag("--no-trace", no_trace, "skip the cuda row tracing every line");
  cli.parse(argc, argv);
  if (quick && !app.count("--sizes")) o.sizes = {64};
  o.trace_too = !no_trace;
  o.json_path = cli.json_path();
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  const std::vector<int>& sizes = o.sizes;
  std::vector<std::string> backends = o.backends;
  const int cpu_voxels = o.cpu_voxels, slab = o.slab;
  const std::string& json_path = o.json_path;
  const bool trace_too = o.trace_too;
  runtime_options().progress = false;
  auto& reg = BackendRegistry<Projector>::instance();
  if (backends.empty()) backends = reg.available_names();
  Env env;
  std::string device = "no GL";
  env.gl = gl::availability().ok;
  if (env.gl) {
    const auto& info = gl::shared_context().info();
    device = info.summary();
    env.software = info.gl_renderer.find("llvmpipe") != std::string::npos;
    std::fprintf(stderr, "bench_glpet: measuring the GL ceilings on %s ...\n", device.c_str());
    env.fixed = measure_fixed(env.software, env.ceilings_json);
  }
  std::vector<Row> rows;
  for (int n : sizes) {
    const SystemModel sys = default_system(n);
    std::vector<std::string> gl_which;
    for (const auto& b : backends) {
      if (auto av = reg.available(b); !av.ok) {
        std::fprintf(stderr, "bench_glpet: skipping %s: %s\n", b.c_str(), av.why.c_str());
        continue;
      }
      if (b == "gl" || b == "gl-compute") {
        gl_which.push_back(b);
        continue;
      }
      std::fprintf(stderr, "bench_glpet: %s %d^3 ...\n", b.c_str(), n);
      if (b == "cpu") {
        bench_cpu(sys, cpu_voxels, rows);
        continue;
      }
      ProjectorOptions cached;
      if (b == "cuda") cached.system_cache = Use::on;  // the rows say "cache bytes": make sure
      try {
        bench_projector(env, b, b, sys, cached, rows);
      } catch (const UnavailableError& e) {
        std::fprintf(stderr, "bench_glpet: %s %d^3 cached: %s\n", b.c_str(), n, e.what());
      }
      if (b == "cuda" && trace_too) {  // the same backend tracing every line in every pass
        ProjectorOptions traced;
        traced.system_cache = Use::off;
        bench_projector(env, b, "cuda-trace", sys, traced, rows);
      }
    }
    if (!gl_which.empty()) {
      const int z = n > 64 && slab < n ? slab : 0;
      std::fprintf(stderr, "bench_glpet: gl backends %d^3 (voxels of %d z-slices timed) ...\n", n, z > 0 ? z : n);
      bench_gl_backends(env, sys, n, gl_which, rows, z);
    }
  }

  print_report(device, slab, env.fixed.ok ? &env.fixed : nullptr, env.march, rows);
  if (!json_path.empty()) write_json(json_path, device, slab, env.ceilings_json, rows);
  run_shutdown_hooks();
  return 0;
}
