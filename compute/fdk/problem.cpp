// Registers the `fdk` problem: cone-beam FDK on the RabbitCT problem [Hofmann2010]. Reads a RabbitCT
// file or simulates analytic C-arm projections, back-projects on a backend, writes the volume,
// slices and the RabbitCT metrics; crosscheck compares every backend with cpu on a small problem.
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "compute/core/crosscheck.hpp"
#include "compute/core/log.hpp"
#include "compute/core/error.hpp"
#include "compute/core/mpi_world.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/memory.hpp"
#include "compute/core/progress.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/scene.hpp"
#include "compute/fdk/config.hpp"
#include "compute/fdk/iterative_run.hpp"
#include "compute/fdk/work_estimate.hpp"
#include "compute/fdk/matrix_file.hpp"
#include "compute/fdk/memory.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/rabbitct_result.hpp"
#include "compute/fdk/raw_input.hpp"
#include "compute/fdk/simulate.hpp"
#include "compute/fdk/slabs.hpp"
#include "compute/core/output_format.hpp"
#include "compute/io/image_output.hpp"
#include "compute/io/npy.hpp"
#include "compute/io/output_dir.hpp"
#include "compute/io/png.hpp"
#include "compute/io/preview.hpp"

namespace tomo::fdk {
namespace {

// The scene's settings and what a run makes of them: the projections, the raw stack read, the
// reference volumes.
struct Setup : FdkConfig {
  explicit Setup(FdkConfig c) : FdkConfig(std::move(c)) {}
  bool phantom_metrics = true;  // simulated data (also when written and read back as a raw stack)
  int rct_version = 2;          // of the RabbitCT file read; the runner outputs use the same layout
  RawInput raw_data;
  ProjectionStack projections;
  std::vector<ReferenceVolume> references;
};

// The ProjectionFilter backend for `backproject_backend`, errors naming the scene key.
std::string pick_filter(const Scene& s, const Setup& d, const std::string& backproject_backend) {
  try {
    return resolve_filter_backend(d.filter_backend, backproject_backend);
  } catch (const InputError& e) {
    throw InputError(s.where("fdk.filter.backend") + ": " + e.what());
  } catch (const UnavailableError& e) {
    throw UnavailableError(s.where("fdk.filter.backend") + ": " + e.what());
  }
}

// Reads the file, or simulates and pre-processes with the `filter` backend (timed apart).
void load_projections(Setup& d, const std::string& filter, RunReport& report, bool progress) {
  if (d.source == Source::rabbitct) {
    auto t = report.time("read");
    RabbitData r = read_rabbitct(d.input);
    d.rct_version = r.version;
    report.set("rabbitct_version", r.version);
    d.projections = std::move(r.projections);
    d.hu_scale = r.hu_scale;
    for (auto& ref : r.references) d.references.push_back(std::move(ref));  // after fdk.reference_volume
    return;
  }
  const CArmGeometry& g = d.source == Source::raw ? d.raw_data.geometry : d.geometry;
  std::optional<Progress> bar;
  if (progress) bar.emplace(d.source == Source::raw ? "filter" : "simulate+filter", g.projections);
  auto op = BackendRegistry<ProjectionFilter>::instance().create(filter);
  {
    auto t = report.time("filter_setup:" + filter);
    op->setup(g, d.filter);
  }
  PreprocessTiming t;
  const auto step = [&](int) {
    if (bar) bar->step();
  };
  if (d.source == Source::raw)
    d.projections = preprocess_raw(std::move(d.raw_data.line_integrals), std::move(d.raw_data.matrices), g, *op, &t, step, 16);
  else
    d.projections = simulate_preprocessed(d.phantom, g, *op, &t, step, 16);
  if (bar) bar->finish();
  report.add_timing("simulate", t.simulate_ms);
  report.add_timing("filter:" + filter, t.filter_ms);
  report.add_device("filter: " + op->describe());
  report.set_metric("filter_ms", t.filter_ms);
  report.set_metric("filter_ms_per_projection", t.filter_ms / g.projections);
  log_info("pre-processing [", filter, "]: ", t.filter_ms, " ms (", t.filter_ms / g.projections,
           " ms/projection); analytic projections ", t.simulate_ms, " ms");
}

VolumeF run_backend(const std::string& backend, const Setup& d, RunReport& report, BackprojectTiming* timing,
                    bool progress) {
  auto& registry = BackendRegistry<ConeBeamBackprojector>::instance();
  const std::string name = registry.resolve(backend);
  auto op = registry.create(name);
  op->configure(d.options);
  std::optional<Progress> bar;
  if (progress) bar.emplace("backproject [" + name + "]", d.projections.count());
  BackprojectTiming t;
  VolumeF v = reconstruct(*op, d.grid, d.projections, d.batch, &t, [&](int cnt) {
    if (bar) bar->step(cnt);
  });
  if (bar) bar->finish();
  report.add_device(op->describe());
  report.add_timing("backproject:" + name, t.total_ms);
  if (timing) *timing = t;
  return v;
}

void report_rabbit(RunReport& report, const std::string& prefix, const RabbitMetric& m) {
  report.set_metric(prefix + "_mse_hu2", m.mse);
  report.set_metric(prefix + "_rmse_hu", m.rmse);
  report.set_metric(prefix + "_max_abs_hu", m.max_abs);
  report.set_metric(prefix + "_psnr_db", std::isfinite(m.psnr_db) ? m.psnr_db : 999.0);
  nlohmann::json h = nlohmann::json::array();
  for (auto c : m.histogram) h.push_back(c);
  report.json()["metrics"][prefix + "_abs_error_histogram"] = h;
  log_info("RabbitCT metric vs ", prefix, ": MSE ", m.mse, " HU², RMSE ", m.rmse, " HU, max ", m.max_abs,
           " HU, PSNR ", m.psnr_db, " dB");
}

// The raw stack of [fdk.raw]; or, with fdk.write_raw, the simulated line integrals written as a
// raw stack (raw_projections.npy + raw_matrices.txt) and then taken through the raw path.
void prepare_raw(RunContext& ctx, Setup& d) {
  const Scene& s = ctx.scene;
  if (d.source == Source::raw) {
    auto t = ctx.report.time("read");
    // Only FDK's Parker weights need a short scan; the iterative algorithms take any arc.
    d.raw_data = load_raw_input(s, d.raw, d.geometry, d.filter.parker && d.algorithm == Algorithm::fdk);
    ctx.report.set("raw_geometry", d.raw_data.source);
    return;
  }
  if (!d.write_raw || d.source != Source::simulated) return;
  const CArmGeometry& g = d.geometry;
  std::vector<float> raw(static_cast<std::size_t>(g.projections) * g.sx * g.sy);
  {
    auto t = ctx.report.time("simulate");
    Progress bar("simulate", g.projections);
    for (int n = 0; n < g.projections; ++n) {
      simulate_projection(d.phantom, g, n, raw.data() + static_cast<std::size_t>(n) * g.sx * g.sy);
      bar.step();  // polls interrupts
    }
    bar.finish();
  }
  const std::size_t shape[3] = {static_cast<std::size_t>(g.projections), static_cast<std::size_t>(g.sy),
                                static_cast<std::size_t>(g.sx)};
  write_npy(ctx.out.file("raw_projections.npy"), std::span<const float>(raw), shape);
  write_matrix_file(ctx.out.file("raw_matrices.txt"), g.matrices());
  d.raw_data = RawInput{g, g.matrices(), std::move(raw), "simulated, written as a raw stack"};
  d.source = Source::raw;  // the phantom metrics still apply: d.phantom_metrics stays true
}

// Reference volumes of side L (in the RabbitCT file, or fdk.reference_volume): the runner's metric
// in the report and its outputs result.rctd + result.rctd.vol.
void compare_with_references(RunContext& ctx, const Setup& d, const std::vector<float>& hu, const BackprojectTiming& t) {
  for (const auto& r : d.references) {
    if (r.L != d.L) continue;
    RabbitResult res;
    res.version = d.rct_version;
    res.L = d.L;
    res.metric = rabbit_metric(hu, r.hu);
    report_rabbit(ctx.report, "file_reference", res.metric);
    res.runtime_us = even_runtimes_us(t.total_ms, d.projections.count());
    res.hu = hu;
    write_rabbitct_result(ctx.out.file("result.rctd"), ctx.out.file("result.rctd.vol"), res);
    return;  // one reference per L: fdk.reference_volume before the file's own
  }
}

// An iterative algorithm on the line integrals: the raw stack's (fdk.raw or fdk.write_raw), or
// the phantom's simulated here. `matrices`, `sx`, `sy` receive the geometry it ran on.
VolumeF iterate(RunContext& ctx, Setup& d, std::vector<Mat34>& matrices, int& sx, int& sy) {
  const std::string backend = resolve_projector_backend(ctx.backend, estimate_work(d));
  ctx.report.set("backend", backend);
  if (d.source == Source::simulated) {
    const CArmGeometry& g = d.geometry;
    auto t = ctx.report.time("simulate");
    d.raw_data = RawInput{g, g.matrices(), std::vector<float>(static_cast<std::size_t>(g.projections) * g.sx * g.sy),
                          "simulated"};
    Progress bar("simulate", g.projections);
    for (int n = 0; n < g.projections; ++n) {
      simulate_projection(d.phantom, g, n, d.raw_data.line_integrals.data() + static_cast<std::size_t>(n) * g.sx * g.sy);
      bar.step();
    }
    bar.finish();
  }
  const ConeGeometry cone{d.grid, d.raw_data.geometry.sx, d.raw_data.geometry.sy, d.raw_data.matrices};
  matrices = cone.matrices;
  sx = cone.sx;
  sy = cone.sy;
  ctx.report.set_metric("projections", cone.views());
  ctx.report.set_metric("L", d.L);
  IterativeOptions o = d.iterative;
  o.on_image = [&](int it, std::vector<float> image) {  // fdk.save_iterations
    VolumeF v(d.grid);
    v.data = std::move(image);
    char stem[40];
    std::snprintf(stem, sizeof stem, "fdk_volume_iter%03d", it);
    write_image(ctx.out, stem, v, {"attenuation (" + to_string(d.algorithm) + ")", "1/mm"});
  };
  return run_iterative(backend, cone, d.raw_data.line_integrals, o, d.projector, ctx.report, true);
}

// The outputs of every algorithm: metrics against the file's or the phantom's reference, the
// volume and its slices. `matrices`, `sx`, `sy`: the geometry the volume was made from.
void finish(RunContext& ctx, const Setup& d, const VolumeF& v, const BackprojectTiming& t, const std::string& backend,
            const std::vector<Mat34>& matrices, int sx, int sy, const std::string& what) {
  auto checks = ctx.report.stage("checks");  // metrics against the references; the writing below is its own
  const auto hu = to_hu(v, d.hu_scale);
  compare_with_references(ctx, d, hu, t);
  if (d.phantom_metrics) {
    VolumeF truth = d.phantom.voxelize(d.grid, 1);
    const auto mask = fov_mask(d.grid, matrices, sx, sy);
    const PhantomError e = phantom_error(v, truth, mask);
    ctx.report.set_metric("phantom_rmse_fov", e.rmse);
    ctx.report.set_metric("phantom_nrmse_fov", e.nrmse);
    ctx.report.set_metric("fov_voxels", static_cast<double>(e.voxels));
    log_info("vs analytic phantom inside the FOV (", e.voxels, " voxels): RMSE ", e.rmse, " mm⁻¹ (", 100 * e.nrmse,
             " % of peak)");
    report_rabbit(ctx.report, "phantom", rabbit_metric(hu, to_hu(truth, d.hu_scale)));
  }
  if (d.reference == ReferenceRun::cpu && d.algorithm == Algorithm::fdk && backend != "cpu") {
    VolumeF ref = run_backend("cpu", d, ctx.report, nullptr, true);
    ctx.report.set_metric("rel_l2_vs_cpu", relative_l2(v.data, ref.data));
    report_rabbit(ctx.report, "cpu", rabbit_metric(hu, to_hu(ref, d.hu_scale)));
  }

  auto tw = ctx.report.time("write");
  write_image(ctx.out, "fdk_volume", v, {"attenuation (" + what + ")", "1/mm"});
  const float lo = static_cast<float>(d.window[0]), hi = static_cast<float>(d.window[1]);
  const PreviewLabel label{"attenuation (" + what + ")", "1/mm", "", ColorMap::Gray, lo, hi};
  write_preview(ctx.out.file("fdk_slice_xy.png"), {slice_panel(v, 2, d.L / 2)}, label);
  write_preview(ctx.out.file("fdk_slice_xz.png"), {slice_panel(v, 1, d.L / 2)}, label);
  write_preview(ctx.out.file("fdk_slice_yz.png"), {slice_panel(v, 0, d.L / 2)}, label);
}

void run(RunContext& ctx) {
  ctx.out.set_image_formats(output_formats(ctx.scene));  // output_format: NIfTI and/or Interfile
  const Scene& s = ctx.scene;
  Setup d(FdkConfig::from_scene(s));
  d.phantom_metrics = d.simulated();
  MemoryEstimate mem = estimate_memory(d.L, d.geometry, d.simulated(), 4, "fdk.L", "fdk.geometry.");
  if (d.source == Source::raw) add_raw_stack(mem, stack_location(s, "fdk.raw.projections"), "fdk.raw.projections");
  if (d.algorithm != Algorithm::fdk) add_iterative(mem, d.grid, d.geometry, d.iterative);
  require_host_memory(mem, "fdk");
  ctx.report.set("algorithm", to_string(d.algorithm));
  const std::string what = d.algorithm == Algorithm::fdk ? "FDK" : str_cat(to_string(d.algorithm), ", ",
                                                                             d.iterative.iterations, " iterations");
  if (!d.reference_volume.empty()) {
    auto tr = ctx.report.time("read_reference");  // before the long work: a wrong size stops here
    d.references.push_back(read_reference_volume(d.reference_volume, d.L));
  }
  if (d.algorithm != Algorithm::fdk) {
    if (!runtime_options().gpus.empty() || process_group())
      throw UnavailableError(str_cat("--gpus/mpirun: fdk runs z-slabs on several ranks for fdk.algorithm = \"fdk\"; ",
                                     to_string(d.algorithm), " runs on one device"));
    prepare_raw(ctx, d);
    std::vector<Mat34> matrices;
    int sx = 0, sy = 0;
    VolumeF v = iterate(ctx, d, matrices, sx, sy);
    finish(ctx, d, v, {}, "", matrices, sx, sy, what);
    return;
  }
  const std::string backend = BackendRegistry<ConeBeamBackprojector>::instance().resolve(ctx.backend, estimate_work(d));
  ctx.report.set("backend", backend);
  Ranks ranks = make_ranks(backend, runtime_options().gpus, "fdk");  // z-slabs (compute/fdk/slabs.hpp)
  const std::string filter = d.source != Source::rabbitct ? pick_filter(s, d, backend) : "none (pre-processed file)";
  ctx.report.set("filter", filter);
  prepare_raw(ctx, d);
  load_projections(d, filter, ctx.report, true);
  if (d.source != Source::rabbitct && d.write_rct) {
    auto t = ctx.report.time("write_rct");
    write_rabbitct(ctx.out.file("projections.rct"), RabbitData{d.projections, d.hu_scale, {}, 2});
  }

  BackprojectTiming t;
  VolumeF v = [&] {
    if (!ranks.team) return run_backend(backend, d, ctx.report, &t, true);
    Progress bar(str_cat("backproject [", backend, "] on ", ranks.size(), " ranks"), d.projections.count());
    VolumeF out = reconstruct_slabs(ranks, backend, d.options, d.grid, d.projections, d.batch, &t,
                                    [&](int cnt) { bar.step(cnt); });  // rank 0's thread alone
    bar.finish();
    for (const auto& name : ranks.names) ctx.report.add_device(name);
    ctx.report.add_timing("backproject:" + backend, t.total_ms);
    return out;
  }();
  ctx.report.set_metric("projections", d.projections.count());
  ctx.report.set_metric("L", d.L);
  ctx.report.set_metric("backproject_ms", t.total_ms);
  ctx.report.set_metric("ms_per_projection", t.ms_per_projection);
  ctx.report.set_metric("gups", t.gups);
  log_info("back-projection [", backend, "]: ", t.total_ms, " ms, ", t.ms_per_projection, " ms/projection, ", t.gups,
           " GUPS");

  finish(ctx, d, v, t, backend, d.projections.matrices, d.projections.sx, d.projections.sy, what);
}

// A small version of the scene's problem: fdk.crosscheck.{L, projections, detector_columns,
// detector_rows, pixel_mm}. Every non-cpu backend must match cpu within `tolerance` with exact
// interpolation; the hardware-interpolation path is held to `hardware_tolerance`.
int crosscheck(CrosscheckContext& ctx) {
  const Scene& s = ctx.scene;
  Setup d(FdkConfig::from_scene(s));
  d.source = Source::simulated;  // crosscheck always simulates (no file needed)
  d.hu_scale = {static_cast<float>(1000.0 / d.mu), 0.0f};
  const CrosscheckSetup& c = d.crosscheck;
  d.L = c.L;
  d.grid = rabbit_grid(d.L, d.volume_mm);
  d.geometry = c.geometry;
  d.batch = 16;
  require_host_memory(estimate_memory(d.L, d.geometry, true, 3, "fdk.crosscheck.L", "fdk.crosscheck."), "fdk crosscheck");
  try {  // the key is validated (unknown name: exit 2); every available filter is compared below anyway
    (void)pick_filter(s, d, "cpu");
  } catch (const UnavailableError&) {
  }
  // The back-projectors are compared on the cpu filter's data.
  load_projections(d, "cpu", ctx.report, false);
  const double tol = c.tolerance, hw_tol = c.hardware_tolerance;
  CrosscheckTable table("fdk", str_cat(d.L, "^3 voxels, ", d.geometry.projections, " projections of ",
                                       d.geometry.sx, "x", d.geometry.sy));

  // Every other pre-processing backend against the cpu (FFTW, double) filter on the same raw data.
  auto& filters = BackendRegistry<ProjectionFilter>::instance();
  run_backends<ProjectionFilter>(
      table,
      [&](const std::string& name) {
        table.run(name, "filter", [&] {
          auto op = filters.create(name);
          op->setup(d.geometry, d.filter);
          const ProjectionStack p = simulate_preprocessed(d.phantom, d.geometry, *op);
          return CrosscheckErrors{{"rel_l2", relative_l2(p.pixels, d.projections.pixels), tol}};
        });
      },
      "filter");

  VolumeF ref = run_backend("cpu", d, ctx.report, nullptr, false);
  const auto ref_hu = to_hu(ref, d.hu_scale);
  run_backends<ConeBeamBackprojector>(table, [&](const std::string& name) {
    for (const Interpolation mode : {Interpolation::exact, Interpolation::hardware})
      table.run(name, to_string(mode), [&] {
        d.options.interpolation = mode;
        VolumeF v = run_backend(name, d, ctx.report, nullptr, false);
        const RabbitMetric m = rabbit_metric(to_hu(v, d.hu_scale), ref_hu);
        return CrosscheckErrors{{"rel_l2", relative_l2(v.data, ref.data), mode == Interpolation::exact ? tol : hw_tol},
                                {"psnr_db", m.psnr_db}};
      });
  });
  return table.finish(ctx.report);
}

const ProblemRegistrar kRegister({"fdk", "cone-beam FDK back-projection on the RabbitCT problem [Hofmann2010]", run,
                            crosscheck, list_backends_of<ConeBeamBackprojector>(), /*multi_device=*/true,
                            [](const Scene& s) { (void)FdkConfig::from_scene(s); }});

}  // namespace
}  // namespace tomo::fdk
