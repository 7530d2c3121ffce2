// bench_engine: the GL ceilings every raster/compute pass is measured against, on this
// GPU in this run (DESIGN.md "GPU facts"; measured by bench/gl_ceilings.hpp, which
// bench_glpet shares), plus the demo problem's backends side by side.
//   bench_engine [--quick] [--json FILE]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/shutdown.hpp"
#include "compute/demo/voxelizer.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/shader_library.hpp"
#include "bench/gl_ceilings.hpp"
#include "bench/harness.hpp"

using namespace tomo;

namespace {

double demo_seconds(const std::string& backend, const Grid3& grid) {
  Phantom ph;
  for (int i = 0; i < 16; ++i) {
    Shape s;
    s.centre = {-20.0 + 2.5 * i, 3.0 * (i % 5) - 6, 2.0 * (i % 3)};
    s.semi_axes = {6.0 + i % 4, 5.0, 7.0};
    s.value = 1.0 + i;
    ph.shapes.push_back(s);
  }
  auto op = BackendRegistry<demo::Voxelizer>::instance().create(backend);
  op->voxelize(ph, grid, 1, grid.dims[2], [](int) {});  // warm-up
  return bench::time_ms([&] { op->voxelize(ph, grid, 2, grid.dims[2], [](int) {}); }) / 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  bench::Cli cli("bench_engine", "the GL ceilings of this GPU and the demo backends side by side");
  cli.app().add_flag("--quick", quick, "probes 16x smaller, a 32^3 demo grid");
  cli.parse(argc, argv);
  runtime_options().progress = false;
  const auto& info = gl::shared_context().info();
  std::printf("bench_engine on %s\n", info.summary().c_str());
  const int q = quick ? 16 : 1;
  const std::vector<bench::Ceiling> rows = bench::engine_ceilings(q);
  Grid3 grid = Grid3::centred({128 / q * 2, 128 / q * 2, 128 / q * 2}, {0.5, 0.5, 0.5});
  if (quick) grid = Grid3::centred({32, 32, 32}, {2, 2, 2});
  nlohmann::json demo_json;
  double cpu_s = 0;
  std::printf("\n%-40s %12s %12s\n", "demo voxelise (16 shapes, 8 sub-samples)", "seconds", "vs cpu");
  for (const auto& name : BackendRegistry<demo::Voxelizer>::instance().available_names()) {
    double s = demo_seconds(name, grid);
    if (name == "cpu") cpu_s = s;
    demo_json[name] = s;
    std::printf("%-40s %12.4f %12s\n", name.c_str(), s, "");
  }
  if (cpu_s > 0)
    for (auto& [name, s] : demo_json.items())
      std::printf("  %s is %.1fx the cpu speed\n", name.c_str(), cpu_s / s.get<double>());

  std::printf("\n%-40s %12s %-11s %14s %8s\n", "GL ceiling (this GPU, this run)", "measured", "unit", "DESIGN (H200)",
              "ratio");
  nlohmann::json j;
  j["device"] = info.summary();
  j["quick"] = quick;
  for (const auto& r : rows) {
    std::printf("%-40s %12.3f %-11s %14.3f %8.2f\n", r.name.c_str(), r.value, r.unit.c_str(), r.reference,
                r.reference > 0 ? r.value / r.reference : 0.0);
    j["ceilings"][r.name] = {{"value", r.value}, {"unit", r.unit}, {"design_h200", r.reference}};
  }
  j["demo_seconds"] = demo_json;
  j["demo_grid"] = grid.dims;
  bench::write_report(cli.json_path(), j);
  run_shutdown_hooks();
  return 0;
}
