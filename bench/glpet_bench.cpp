// bench_glpet: per-voxel time of the glpet passes (forward = seed §III, ratio
// back-projection = §IV, one ML-EM iteration) for 64³ and 128³ on the default geometry
// (two 32×32 modules, 2 mm pitch, 160 mm apart, R = 4, N = 1, K = 32, water cylinder),
// per available backend, beside the seed's 8800 GTX figures. GPU backends run full
// passes; the cpu reference is timed on a voxel subset and extrapolated (it needs hours).
// cuda runs twice: with its system-matrix cache (docs/glpet.md §6) and as "cuda-trace",
// tracing every line in every pass (--no-trace skips that row).
// Usage: bench_glpet [--sizes 64,128] [--backends cpu,cuda] [--cpu-voxels 64] [--no-trace] [--json FILE]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/phantom.hpp"
#include "core/registry.hpp"
#include "glpet/cpu_projector.hpp"
#include "glpet/projector.hpp"

using namespace tomo;
using namespace tomo::glpet;

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

struct Row {
  std::string backend;
  int n = 0;
  double fwd_ms_per_voxel = 0, back_ms_per_voxel = 0, iter_s = 0, fwd_s = 0, back_s = 0;
  double setup_s = 0;  // first sensitivity: Σ_l A_lv, plus the cuda system-matrix cache when it is built
  bool extrapolated = false;
};

// cpu: time the elementary voxel→LOR correspondence on `count` voxels spread over the grid.
Row bench_cpu(const SystemModel& sys, int count) {
  Row r;
  r.backend = "cpu";
  r.n = sys.grid.dims[0];
  r.extrapolated = true;
  const Extinction ext(sys.sigma_t);
  const auto offsets = sample_offsets(sys.N);
  std::vector<double> atlas(sys.lor_count(), 0.0), ratio(sys.lor_count(), 1.0);
  const int n = sys.grid.dims[0];
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
  r.fwd_ms_per_voxel = ms_since(t0) / count;
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
  r.back_ms_per_voxel = ms_since(t0) / count;
  if (sink < 0) std::printf("?");
  r.fwd_s = r.fwd_ms_per_voxel * sys.voxel_count() / 1e3;  // one core
  r.back_s = r.back_ms_per_voxel * sys.voxel_count() / 1e3;
  r.iter_s = r.fwd_s + r.back_s;
  return r;
}

Row bench_backend(const std::string& name, const SystemModel& sys) {
  auto op = BackendRegistry<Projector>::instance().create(name);
  op->configure(sys);
  auto x = op->make_image(), yt = op->make_lors(), y = op->make_lors(), b = op->make_image(), s = op->make_image();
  x->upload(std::vector<float>(x->size(), 1.0f));
  y->upload(std::vector<float>(y->size(), 1.0f));
  Row r;
  auto t_setup = Clock::now();
  op->sensitivity(*s);  // what ML-EM does once before iterating
  op->finish();
  r.setup_s = ms_since(t_setup) / 1e3;
  op->forward(*x, *yt);  // warm-up (and ỹ for the ratio)
  op->finish();
  r.backend = name;
  r.n = sys.grid.dims[0];
  auto t0 = Clock::now();
  op->forward(*x, *yt);
  op->finish();
  r.fwd_s = ms_since(t0) / 1e3;
  t0 = Clock::now();
  op->back_ratio(*y, *yt, *b, nullptr);
  op->finish();
  r.back_s = ms_since(t0) / 1e3;
  t0 = Clock::now();
  op->forward(*x, *yt);
  op->back_ratio(*y, *yt, *b, nullptr);
  op->mlem_update(*x, *b, *s);
  op->finish();
  r.iter_s = ms_since(t0) / 1e3;
  r.fwd_ms_per_voxel = r.fwd_s * 1e3 / sys.voxel_count();
  r.back_ms_per_voxel = r.back_s * 1e3 / sys.voxel_count();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes{64, 128};
  std::vector<std::string> backends;
  int cpu_voxels = 64;
  std::string json_path;
  bool trace_too = true;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    auto next = [&]() -> std::string {
      if (a + 1 >= argc) {
        std::fprintf(stderr, "bench_glpet: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++a];
    };
    if (arg == "--sizes") {
      sizes.clear();
      for (const auto& s : split(next())) sizes.push_back(std::stoi(s));
    } else if (arg == "--backends") {
      backends = split(next());
    } else if (arg == "--cpu-voxels") {
      cpu_voxels = std::stoi(next());
    } else if (arg == "--no-trace") {
      trace_too = false;
    } else if (arg == "--json") {
      json_path = next();
    } else {
      std::fprintf(stderr, "usage: bench_glpet [--sizes 64,128] [--backends a,b] [--cpu-voxels N] [--no-trace] [--json FILE]\n");
      return 2;
    }
  }
  auto& reg = BackendRegistry<Projector>::instance();
  if (backends.empty()) backends = reg.available_names();
  std::vector<Row> rows;
  for (int n : sizes) {
    const SystemModel sys = default_system(n);
    for (const auto& b : backends) {
      if (auto av = reg.available(b); !av.ok) {
        std::fprintf(stderr, "bench_glpet: skipping %s: %s\n", b.c_str(), av.why.c_str());
        continue;
      }
      std::fprintf(stderr, "bench_glpet: %s %d^3 ...\n", b.c_str(), n);
      rows.push_back(b == "cpu" ? bench_cpu(sys, cpu_voxels) : bench_backend(b, sys));
      if (b == "cuda" && trace_too) {  // the same backend tracing every line in every pass
        SystemModel traced = sys;
        traced.system_cache = "off";
        rows.push_back(bench_backend(b, traced));
        rows.back().backend = "cuda-trace";
      }
    }
  }
  // The seed's single 8800 GTX (seed 004 §VI): 0.06 ms correspondence + 0.07 ms atlas =
  // 0.13 ms per voxel forward, 4.5 min forward and 90 s back-projection for 128³.
  std::printf("\nglpet passes, default geometry (32x32 modules, R=4, N=1, K=32); seed 8800 GTX: forward "
              "0.13 ms/voxel (0.06 corr + 0.07 atlas), back 0.04 ms/voxel reduction; 128^3: 270 s fwd, 90 s back\n");
  std::printf("%-10s %6s %16s %16s %12s %12s %12s %12s %10s\n", "backend", "size", "fwd ms/voxel", "back ms/voxel",
              "fwd s", "back s", "iter s", "setup s", "note");
  nlohmann::json j = nlohmann::json::array();
  for (const Row& r : rows) {
    std::printf("%-10s %5d^3 %16.4g %16.4g %12.4g %12.4g %12.4g %12.4g %10s\n", r.backend.c_str(), r.n,
                r.fwd_ms_per_voxel, r.back_ms_per_voxel, r.fwd_s, r.back_s, r.iter_s, r.setup_s,
                r.extrapolated ? "1 core, ext" : "");
    j.push_back({{"backend", r.backend},
                 {"size", r.n},
                 {"forward_ms_per_voxel", r.fwd_ms_per_voxel},
                 {"back_ms_per_voxel", r.back_ms_per_voxel},
                 {"forward_s", r.fwd_s},
                 {"back_s", r.back_s},
                 {"iteration_s", r.iter_s},
                 {"setup_s", r.setup_s},
                 {"extrapolated_single_core", r.extrapolated},
                 {"seed_forward_ms_per_voxel", 0.13},
                 {"seed_forward_s_128", 270.0},
                 {"seed_back_s_128", 90.0}});
  }
  if (!json_path.empty()) std::ofstream(json_path) << j.dump(2) << "\n";
  return 0;
}
