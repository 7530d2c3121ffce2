// bench_glpet: every glpet pass beside the ceiling it is bound by, in one run. For 64³ and
// 128³ on the default geometry (two 32×32 modules, 2 mm pitch, 160 mm apart, R = 4, N = 1,
// K = 32, water cylinder) it prints the time per voxel of each pass and of a full ML-EM
// iteration for `gl` (raster: correspondence, atlas, terms, reduction, collect; forward,
// back_ratio, update), `gl-compute` and `cuda` (forward, back_ratio, update), each with the
// achieved rate, the ceiling it is bound by — measured in this run by bench/gl_ceilings.hpp
// (docs/glpet.md §6 maps pass → ceiling) — the percentage, and the seed's 8800 GTX figures.
// Above 64³ the GL backends process only the voxels of the central `--slab` z-slices of the
// full grid (their lines cross the whole volume) and are reported per processed voxel. cuda runs with its system-matrix cache ("cuda") and tracing every line
// ("cuda-trace", --no-trace skips it). cpu is timed on a voxel subset and extrapolated.
// Usage: bench_glpet [--quick] [--sizes 64,128] [--backends gl,gl-compute,cuda,cpu] [--slab 8]
//                    [--cpu-voxels 64] [--no-trace] [--json FILE]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
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
#include "bench/gl_ceilings.hpp"
#include "bench/glpet_bench_report.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "renderer/glpet/gl_pass_timings.hpp"
#include "compute/glpet/projector.hpp"

using namespace tomo;
using namespace tomo::glpet;
using namespace tomo::bench::glpet_report;

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

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

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Lines of all correspondence images of one pass, per voxel.
double lines_per_voxel(const SystemModel& sys) {
  double l = 0;
  for (const ModulePair& p : sys.scanner.pairs) l += double(sys.R) * p.n_a() * sys.R * p.n_t();
  return l * sys.N;
}


struct Env {
  bool gl = false, software = false;
  FixedCeilings fixed;
  std::map<std::string, MarchCeilings> march;  // by grid "nx x ny x nz"
  nlohmann::json ceilings_json = nlohmann::json::array();
};

FixedCeilings measure_fixed(bool software, nlohmann::json& out) {
  const int q = software ? 16 : 1;
  FixedCeilings c;
  c.frag_copy = bench::fragment_copy_gfrags(4096 / q) * 1e9;
  c.point_blend = bench::point_blend_gpoints(2048 / q, (1 << 26) / (q * q)) * 1e9;
  c.atomic_float = bench::atomic_gops(132 * 2048 * 4 / q, software ? 16 : 64, 1 << 20, true) * 1e9;
  c.copy = bench::copy_tbps((std::size_t(1) << 28) / (q * q)) * 1e12;
  c.mipmap = bench::mipmap_gbps(software ? 128 : 1024, software ? 8 : 64, true) * 1e9;
  c.compute_fma = bench::compute_fma_tflops(132 * 2048 * 8 / q, 1024 / q) * 1e12;
  c.fragment_fma = bench::fragment_fma_tflops(4096 / q, software ? 64 : 256) * 1e12;
  c.ok = true;
  auto add = [&](const char* name, double v, const char* unit) { out.push_back({{"name", name}, {"rate", v}, {"unit", unit}}); };
  add("fragment RGBA32F texel copy", c.frag_copy, "fragments/s");
  add("points blended into R32F", c.point_blend, "points/s");
  add("compute float atomicAdd", c.atomic_float, "ops/s");
  add("compute copy (read+write)", c.copy, "bytes/s");
  add("glGenerateTextureMipmap RGBA32F array (all levels read)", c.mipmap, "bytes/s");
  add("compute fp32 FMA", c.compute_fma, "FLOP/s");
  add("fragment fp32 FMA", c.fragment_fma, "FLOP/s");
  return c;
}

const MarchCeilings& march_for(Env& env, const SystemModel& sys) {
  const auto& d = sys.grid.dims;
  const std::string key = std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
  if (auto it = env.march.find(key); it != env.march.end()) return it->second;
  MarchCeilings m;
  m.lines = line_work(sys);
  m.samples = std::max(1, int(std::lround(m.lines.samples_per_hit)));
  const int tiles = env.software ? 2 : 16;
  const std::array<int, 3> dims{d[0], d[1], d[2]};
  m.frag_texel = bench::march_glines(bench::March::FragmentTexelFetch, dims, sys.sigma_t.data, m.samples, tiles) * 1e9;
  m.frag_filtered = bench::march_glines(bench::March::FragmentFiltered, dims, sys.sigma_t.data, m.samples, tiles) * 1e9;
  m.compute_loads = bench::march_glines(bench::March::ComputeLoads, dims, sys.sigma_t.data, m.samples, tiles) * 1e9;
  std::fprintf(stderr, "bench_glpet: grid %s: %.3f of the lines hit, %.2f of K = %d samples fetched per hit line\n",
               key.c_str(), m.lines.hit_fraction, m.lines.samples_per_hit, sys.K);
  env.ceilings_json.push_back({{"grid", key},
                               {"hit_fraction", m.lines.hit_fraction},
                               {"samples_per_hit_line", m.lines.samples_per_hit},
                               {"march_samples", m.samples},
                               {"fragment_march_texelfetch_lines_per_s", m.frag_texel},
                               {"fragment_march_filtered_lines_per_s", m.frag_filtered},
                               {"compute_march_loads_lines_per_s", m.compute_loads}});
  return env.march.emplace(key, m).first->second;
}

// ---- rows -----------------------------------------------------------------------------


// gl / gl-compute through gl_pass_timings() on `sys` (the full grid or a slab of it).
// `slab` > 0: only the voxels of the central `slab` z-slices are processed (the lines still
// cross the whole σ_t volume), and the rows are per processed voxel.
void bench_gl_backends(Env& env, const SystemModel& sys, int n, const std::vector<std::string>& which,
                       std::vector<Row>& rows, int slab = 0) {
  const MarchCeilings& mc = march_for(env, sys);
  const FixedCeilings& fc = env.fixed;
  const std::size_t plane = std::size_t(sys.grid.dims[0]) * sys.grid.dims[1];
  const std::size_t first = slab > 0 ? plane * std::size_t(sys.grid.dims[2] / 2 - slab / 2) : 0;
  const std::size_t count = slab > 0 ? plane * std::size_t(slab) : 0;
  const double nvox = count > 0 ? double(count) : double(sys.voxel_count());
  const double lines = lines_per_voxel(sys), hits = lines * mc.lines.hit_fraction;
  std::vector<float> x(sys.voxel_count(), 1.0f);  // x > 0 everywhere: no voxel is skipped
  const std::vector<float> y(sys.lor_count(), 1.0f);
  const auto timings = gl_pass_timings(sys, x, y, 1, which, first, count);
  const std::string note =
      slab > 0 ? "voxels of " + std::to_string(slab) + "/" + std::to_string(n) + " z-slices, scaled" : "";
  for (const std::string& be : which) {
    std::map<std::string, Row> by;
    for (const GlPassTiming& t : timings) {
      if (t.backend != be) continue;
      Row r{be, t.pass, n, t.ms_per_voxel, t.work / (t.pass == "update" ? double(sys.voxel_count()) : nvox), t.unit};
      r.note = note;
      const double w = r.work_per_voxel;
      if (t.pass == "correspondence") {
        r.bound_by = "frag march 8 texelFetch";
        r.ceil_ms_per_voxel = bound_ms(hits, mc.frag_texel);
      } else if (t.pass == "correspondence_hw") {
        r.bound_by = "frag march filtered";
        r.ceil_ms_per_voxel = bound_ms(hits, mc.frag_filtered);
      } else if (t.pass == "atlas") {
        r.bound_by = "point blend (hits)";
        r.ceil_ms_per_voxel = bound_ms(hits, fc.point_blend);
      } else if (t.pass == "terms") {
        r.bound_by = "frag RGBA32F copy";
        r.ceil_ms_per_voxel = bound_ms(w, fc.frag_copy);
      } else if (t.pass == "reduction") {
        // Each halving level is a fragment pass: one output texel = four RGBA32F source texels
        // (64 B read) = one fragment, so its bound is the fragment RGBA32F pass rate.
        r.bound_by = "frag RGBA32F copy";
        r.ceil_ms_per_voxel = bound_ms(w / 64.0, fc.frag_copy);
      } else if (t.pass == "collect" || t.pass == "update") {
        r.bound_by = "copy bandwidth";
        r.ceil_ms_per_voxel = bound_ms(w, fc.copy);
      } else if (be == "gl-compute" && t.pass != "update") {
        // Every hit line is ray-marched; the forward scatter adds ≥ 1 float atomicAdd per
        // R×R macropixel with a hit: whichever bound is larger.
        r.bound_by = "compute march 8 loads";
        r.ceil_ms_per_voxel = bound_ms(hits, mc.compute_loads);
        if (t.pass == "forward") {
          const double atom = bound_ms(hits / (double(sys.R) * sys.R), fc.atomic_float);
          if (atom > r.ceil_ms_per_voxel) {
            r.bound_by = "float atomicAdd";
            r.ceil_ms_per_voxel = atom;
          }
        }
      }
      by[t.pass] = r;
    }
    if (by.empty()) continue;
    auto get = [&](const char* p) -> const Row* { return by.count(p) ? &by[p] : nullptr; };
    if (be == "gl") {
      by["forward"] = composite(be, "forward", n, {get("correspondence"), get("atlas")}, by["forward"].ms_per_voxel,
                                by["forward"].work_per_voxel, by["forward"].unit);
      by["back_ratio"] = composite(be, "back_ratio", n,
                                   {get("correspondence"), get("terms"), get("reduction"), get("collect")},
                                   by["back_ratio"].ms_per_voxel, by["back_ratio"].work_per_voxel, by["back_ratio"].unit);
      by["forward"].note = by["back_ratio"].note = note;
    }
    Row it = composite(be, "iteration", n, {get("forward"), get("back_ratio"), get("update")},
                       by["forward"].ms_per_voxel + by["back_ratio"].ms_per_voxel + by["update"].ms_per_voxel, 1.0,
                       "voxels");
    it.note = note;
    if (by.count("sensitivity")) it.setup_s = by["sensitivity"].ms_per_voxel * double(n) * n * n * 1e-3;
    const std::vector<std::string> order =
        be == "gl" ? std::vector<std::string>{"correspondence", "correspondence_hw", "atlas", "terms", "reduction",
                                              "collect", "forward", "back_ratio", "update"}
                   : std::vector<std::string>{"forward", "back_ratio", "update"};
    for (const auto& p : order)
      if (by.count(p)) rows.push_back(by[p]);
    rows.push_back(it);
  }
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
  auto timed = [&](auto&& f) {
    op->synchronize();
    const auto t = Clock::now();
    f();
    op->synchronize();
    return ms_since(t);
  };
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

// The command line; a bad one prints usage or the reason and exits 2.
Options parse_args(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    auto next = [&]() -> std::string {
      if (a + 1 >= argc) {
        std::fprintf(stderr, "bench_glpet: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++a];
    };
    auto positive = [&](const std::string& v) {
      int i = 0;
      try {
        i = std::stoi(v);
      } catch (...) {
      }
      if (i < 1) {
        std::fprintf(stderr, "bench_glpet: %s wants a positive integer, got \"%s\"\n", arg.c_str(), v.c_str());
        std::exit(2);
      }
      return i;
    };
    if (arg == "--sizes") {
      o.sizes.clear();
      for (const auto& s : split(next())) o.sizes.push_back(positive(s));
    } else if (arg == "--quick") {
      o.sizes = {64};
    } else if (arg == "--backends") {
      o.backends = split(next());
    } else if (arg == "--cpu-voxels") {
      o.cpu_voxels = positive(next());
    } else if (arg == "--slab") {
      o.slab = positive(next());
    } else if (arg == "--no-trace") {
      o.trace_too = false;
    } else if (arg == "--json") {
      o.json_path = next();
    } else {
      std::fprintf(stderr,
                   "usage: bench_glpet [--quick] [--sizes 64,128] [--backends a,b] [--slab Z] [--cpu-voxels N] "
                   "[--no-trace] [--json FILE]\n");
      std::exit(2);
    }
  }
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
