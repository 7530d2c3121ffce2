// bench_glpet's GL part (see glpet_bench_gl.hpp).
#include "bench/glpet_bench_gl.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "bench/gl_ceilings.hpp"
#include "bench/gl/gl_pass_timings.hpp"

namespace tomo::bench::glpet_report {

using namespace tomo::glpet;

double lines_per_voxel(const SystemModel& sys) {
  double l = 0;
  for (const ModulePair& p : sys.scanner.pairs) l += double(sys.R) * p.n_a() * sys.R * p.n_t();
  return l * sys.N;
}


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

namespace {

// What one gl/gl-compute pass row is bound by (docs/glpet.md §6); `hits` are the hit lines per
// voxel, `w` the row's work per voxel.
void bound_pass(Row& r, const std::string& be, const GlPassTiming& t, const Env& env, const MarchCeilings& mc,
                double hits, double R) {
  const FixedCeilings& fc = env.fixed;
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
      const double atom = bound_ms(hits / (R * R), fc.atomic_float);
      if (atom > r.ceil_ms_per_voxel) {
        r.bound_by = "float atomicAdd";
        r.ceil_ms_per_voxel = atom;
      }
    }
  }
}

// The pass rows of one backend, the whole calls composed from them (gl) and the iteration row,
// appended to `rows` in the order of the table.
void add_backend_rows(std::map<std::string, Row>& by, const std::string& be, int n, const std::string& note,
                      std::vector<Row>& rows) {
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

}  // namespace

void bench_gl_backends(Env& env, const SystemModel& sys, int n, const std::vector<std::string>& which,
                       std::vector<Row>& rows, int slab) {
  const MarchCeilings& mc = march_for(env, sys);
  const std::size_t plane = std::size_t(sys.grid.dims[0]) * sys.grid.dims[1];
  const std::size_t first = slab > 0 ? plane * std::size_t(sys.grid.dims[2] / 2 - slab / 2) : 0;
  const std::size_t count = slab > 0 ? plane * std::size_t(slab) : 0;
  const double nvox = count > 0 ? double(count) : double(sys.voxel_count());
  const double hits = lines_per_voxel(sys) * mc.lines.hit_fraction;
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
      bound_pass(r, be, t, env, mc, hits, double(sys.R));
      by[t.pass] = r;
    }
    if (!by.empty()) add_backend_rows(by, be, n, note, rows);
  }
}

}  // namespace tomo::bench::glpet_report
