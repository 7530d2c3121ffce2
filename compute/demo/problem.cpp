// Registers the `demo` problem: scene section [demo], runner and cross-check (the common
// table of compute/core/crosscheck.hpp).
#include <cmath>

#include "compute/core/crosscheck.hpp"
#include "compute/core/log.hpp"
#include "compute/core/memory.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/progress.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/scene.hpp"
#include "compute/demo/config.hpp"
#include "compute/demo/memory.hpp"
#include "compute/demo/voxelizer.hpp"
#include "compute/core/output_format.hpp"
#include "compute/io/image_output.hpp"
#include "compute/io/output_dir.hpp"
#include "compute/io/png.hpp"
#include "compute/io/preview.hpp"

namespace tomo::demo {
namespace {

VolumeF run_backend(const std::string& backend, const DemoConfig& d, RunReport& report, bool show_progress) {
  auto& registry = BackendRegistry<Voxelizer>::instance();
  std::string name = registry.resolve(backend);
  auto op = registry.create(name);
  report.add_device(op->describe());
  Progress progress("voxelise [" + name + "]", d.grid.dims[2]);
  int last = 0;
  auto timer = report.time("voxelise:" + name);
  VolumeF v = op->voxelize(d.phantom, d.grid, d.supersampling, d.slab, [&](int z_done) {
    if (show_progress) progress.step(z_done - last);
    last = z_done;
  });
  op->synchronize();
  progress.finish();
  return v;
}

void run(RunContext& ctx) {
  ctx.out.set_image_formats(output_formats(ctx.scene));  // output_format: NIfTI and/or Interfile
  const DemoConfig d = DemoConfig::from_scene(ctx.scene);
  require_host_memory(estimate_memory(d.grid, d.slab, 1), "demo");
  // The cpu's cost, for "auto" falling back to it: one shape test per point sample (s³ a voxel),
  // about 2e8 per core-second on the cpu backend (demo.toml: 96³ voxels, s = 3, in 0.7 s of cpu time).
  const double samples = double(d.grid.count()) * std::pow(d.supersampling, 3) * double(d.phantom.shapes.size());
  std::string backend =
      BackendRegistry<Voxelizer>::instance().resolve(ctx.backend, {.units = samples, .cpu_units_per_core_s = 2e8});
  ctx.report.set("backend", backend);
  VolumeF v = run_backend(backend, d, ctx.report, true);

  const double voxel_volume = d.grid.voxel_mm[0] * d.grid.voxel_mm[1] * d.grid.voxel_mm[2];
  double sum = 0;
  for (float x : v.data) sum += x;
  const double expected = d.phantom.integral();
  ctx.report.set_metric("integral", sum * voxel_volume);
  ctx.report.set_metric("integral_analytic", expected);
  ctx.report.set_metric("integral_relative_error", std::abs(sum * voxel_volume - expected) / std::abs(expected));
  log_info("phantom integral: voxelised ", sum * voxel_volume, ", analytic ", expected);

  auto t = ctx.report.time("write");
  write_image(ctx.out, "phantom", v, {"phantom density", "a.u."});
  write_preview(ctx.out.file("phantom_mip.png"), mip_panels(v), {"phantom density", "a.u.", "MIPs", ColorMap::Hot, 0, 0});
  write_preview(ctx.out.file("phantom_slices.png"), central_slice_panels(v),
                {"phantom density", "a.u.", "central slices", ColorMap::Gray, 0, 0});
}

int crosscheck(CrosscheckContext& ctx) {
  const DemoConfig d = DemoConfig::from_scene(ctx.scene);
  require_host_memory(estimate_memory(d.grid, d.slab, 2), "demo crosscheck");
  VolumeF ref = run_backend("cpu", d, ctx.report, false);
  const double tolerance = 1e-5;  // float vs double sums of s³ 0/1 samples
  const auto& n = d.grid.dims;
  CrosscheckTable table("demo", str_cat(n[0], "x", n[1], "x", n[2], " voxels, supersampling ", d.supersampling));
  run_backends<Voxelizer>(table, [&](const std::string& name) {
    table.run(name, "", [&] {
      return CrosscheckErrors{{"rel_l2", relative_l2(run_backend(name, d, ctx.report, false).data, ref.data), tolerance}};
    });
  });
  return table.finish(ctx.report);
}

const ProblemRegistrar kRegister({"demo", "voxelise an analytic phantom on the GPU (engine demonstration)", run, crosscheck,
                            list_backends_of<Voxelizer>(), /*multi_device=*/false,
                            [](const Scene& s) { (void)DemoConfig::from_scene(s); }});

}  // namespace
}  // namespace tomo::demo
