// The `oat` problem ([Wang2013]): simulate (blurred spheres, exact pulses) or read the data, run
// FBP and PLS-int on the chosen backend, write volumes (.nii), MIP previews in three orientations,
// the data preview, report.json with RMSE vs the phantom per algorithm; `crosscheck` compares
// every backend's H, Hᵀ and FBP with cpu.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "compute/core/crosscheck.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/progress.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/core/output_format.hpp"
#include "compute/io/image_output.hpp"
#include "compute/io/output_dir.hpp"
#include "compute/io/png.hpp"
#include "compute/io/preview.hpp"
#include "compute/oat/acquisition.hpp"
#include "compute/oat/config.hpp"
#include "compute/oat/fbp_slabs.hpp"
#include "compute/oat/data_io.hpp"
#include "compute/oat/deconvolution.hpp"
#include "compute/oat/images.hpp"
#include "compute/oat/memory.hpp"
#include "compute/oat/model_team.hpp"
#include "compute/oat/pls_progress.hpp"
#include "compute/oat/pls_report.hpp"
#include "compute/oat/sph_run.hpp"

namespace tomo::oat {

namespace {

// Crosscheck tolerances (relative L2 vs cpu): exact fp32 paths, and the texture unit's 8-bit
// interpolation weights (hardware) for the forward model and FBP.
constexpr double kExactTolerance = 1e-4;
constexpr double kHardwareTolerance = 2e-2;

void write_volume(OutputDir& out, const Grid3& g, const std::string& stem, std::span<const double> v) {
  VolumeF vol(g);
  for (std::size_t i = 0; i < v.size(); ++i) vol.data[i] = static_cast<float>(v[i]);
  write_image(out, stem, vol);
  static const char* kAxes[3] = {"yz", "xz", "xy"};  // the plane each MIP shows
  const std::vector<PreviewPanel> mips = mip_panels(vol);
  for (int axis = 0; axis < 3; ++axis)
    write_preview(out.file(stem + "_mip_" + kAxes[axis] + ".png"), {mips[axis]},
                  {stem, "a.u.", "MIP", ColorMap::Gray, 0, 0});
}

void record_errors(RunReport& report, const std::string& name, std::span<const double> img,
                   const std::vector<double>& phantom) {
  if (phantom.empty()) return;
  report.set_metric("rmse_" + name, rmse(img, phantom));
  report.set_metric("nrmse_" + name, nrmse(img, phantom));
  report.set_metric("correlation_" + name, correlation(img, phantom));
  log_info("oat ", name, ": RMSE vs phantom ", rmse(img, phantom), ", correlation ", correlation(img, phantom));
}

std::vector<double> run_pls_reported(RunContext& ctx, const OatConfig& c, const OatGeometry& g,
                                     std::span<const double> u, const std::string& backend) {
  std::unique_ptr<Model> model;
  {
    auto timer = ctx.report.time("contexts");  // the devices (GL or CUDA contexts, the ranks) and their uploads
    model = make_model(backend, runtime_options().gpus, g, c.model);
    for (const std::string& d : model_devices(*model)) ctx.report.add_device(d);
  }
  nlohmann::json its = nlohmann::json::array();
  Progress progress("oat PLS-int (" + backend + ")", pls_applications(c.pls.iterations));
  ProgressModel counted(*model, progress);  // steps once per H or Hᵀ
  const auto start = std::chrono::steady_clock::now();
  auto timer = ctx.report.time("pls");
  auto alpha = run_pls(counted, g.grid, u, c.pls, [&](const PlsIteration& s) {
    its.push_back(pls_iteration_json(s));
    if (s.iteration == 0) ctx.report.set("pls", pls_settings_json(c.pls, s.scale));
    if (s.iteration > 0)
      progress.step(0, str_cat("iteration ", s.iteration, ", objective ", s.objective, ", residual ", s.residual));
  });
  progress.finish();
  ctx.report.set("pls_iterations", its);
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ctx.report.set("pls_time", pls_time_json(counted.forward_time(), counted.adjoint_time(), total));
  return alpha;
}

std::vector<double> run_fbp_reported(RunContext& ctx, const OatConfig& c, const OatGeometry& g,
                                     std::span<const double> u) {
  std::unique_ptr<Fbp> op;
  {
    auto timer = ctx.report.time("contexts");
    op = make_fbp(BackendRegistry<Fbp>::instance().resolve(ctx.backend), runtime_options().gpus);
    op->configure(g, c.fbp);
    ctx.report.add_device(op->describe());
  }
  auto timer = ctx.report.time("fbp");
  const std::vector<double> p = deconvolve_eir(g, u, c.deconvolution_cutoff_mhz);
  std::vector<double> img(g.grid.count());
  op->reconstruct(p, img);
  op->synchronize();
  return img;
}

// The cpu's cost of the model-based part, the bulk of a cpu run, for `auto`'s fallback line:
// every PLS iteration (and the step-size probe) one H_int and one H_intᵀ of about 1.25 shell
// patches per voxel and transducer (bench_oat: 2.63e10 patches for 2.6e6 voxels × 8192
// transducers) at about 2e7 patches per core-second (bench_oat's double cpu reference, one
// thread). FBP and H_sph are not modelled: without PLS on H_int the time is not estimated.
WorkEstimate estimate_work(const OatConfig& c) {
  const double q = double(c.geometry.rings) * c.geometry.views;
  const bool pls = std::find(c.algorithms.begin(), c.algorithms.end(), Algorithm::pls) != c.algorithms.end();
  if (!pls || c.model.kind == ModelKind::sph || q <= 0) return {};
  return {.units = 2.0 * (c.pls.iterations + 1) * 1.25 * double(c.geometry.grid.count()) * q,
          .cpu_units_per_core_s = 2e7};
}

// report.json timings_ms: the stages below add up to "total" (the whole of run): setup (scene and
// memory check), simulation or reading, contexts (backends made and configured), fbp (with the
// EIR deconvolution), pls, writing (volumes, previews, data, metrics).
void run(RunContext& ctx) {
  std::optional<RunReport::Timer> stage;
  stage.emplace(ctx.report, "setup");
  ctx.out.set_image_formats(output_formats(ctx.scene));  // output_format: NIfTI and/or Interfile
  const OatConfig c = OatConfig::from_scene(ctx.scene);
  const bool pls_int = c.model.kind != ModelKind::sph &&
                       std::find(c.algorithms.begin(), c.algorithms.end(), Algorithm::pls) != c.algorithms.end();
  require_host_memory(estimate_memory(c), "oat");
  stage.emplace(ctx.report, "contexts");  // `auto` probes the backends
  const std::string backend = BackendRegistry<Model>::instance().resolve(ctx.backend, estimate_work(c));
  if (!runtime_options().gpus.empty() && pls_int && !has_model_multi(backend))
    throw InputError("--gpus: oat's PLS with H_int runs on several devices with the cpu and cuda backends; '" + backend +
                     "' runs it on one (oat.algorithms = [\"fbp\"] or one device)");
  if (c.model.reproducible && pls_int && backend == "gl-compute")  // before any work (its configure refuses too)
    throw InputError(kReproducibleOnGlCompute);
  stage.emplace(ctx.report, c.source == DataSource::simulate ? "simulation" : "reading");
  Acquisition acq = acquire(c);
  const OatGeometry& g = acq.geometry;
  if (c.model.kind == ModelKind::sph) (void)resolved_sph_setup(c, g);  // bad oat.sph keys fail before any output
  if (pls_int && !runtime_options().gpus.empty())  // more ranks than rings fails before any output
    (void)transducer_share(g, 0, model_rank_count(backend, runtime_options().gpus));
  stage.emplace(ctx.report, "writing");
  ctx.report.set("geometry", {{"transducers", g.transducer_count()}, {"rings", g.rings}, {"views", g.views},
                              {"samples", g.time.samples}, {"fs_mhz", g.time.fs_mhz}, {"t_min_us", g.time.t_min_us},
                              {"c0_mm_per_us", g.c0_mm_per_us}, {"radius_mm", g.radius_mm},
                              {"grid", g.grid.dims}, {"voxel_mm", g.voxel_mm()}});
  if (acq.simulated) {
    ctx.report.set_metric("noise_sigma", acq.noise_sigma);
    if (c.write_data) write_npy_data(ctx.out.file("data.npy"), ctx.out.file("transducers.npy"), g, acq.data);
    write_volume(ctx.out, g.grid, "phantom", acq.phantom);
  }
  write_data_preview(ctx.out.file("data.png"), g.transducer_count(), g.time.samples, g.time.t_min_us, g.time.dt_us(),
                     acq.data);
  stage.reset();

  ctx.report.set("backend", backend);
  for (const Algorithm algorithm : c.algorithms) {
    const std::string name(enum_name(kAlgorithmNames, algorithm));
    std::vector<double> img;
    if (algorithm == Algorithm::fbp)
      img = run_fbp_reported(ctx, c, g, acq.data);
    else if (c.model.kind == ModelKind::sph)
      img = run_pls_sph(ctx, c, g, acq.data, BackendRegistry<SphModel>::instance().resolve(ctx.backend));
    else
      img = run_pls_reported(ctx, c, g, acq.data, backend);
    auto timer = ctx.report.time("writing");
    write_volume(ctx.out, g.grid, name, img);
    record_errors(ctx.report, name, img, acq.phantom);
  }
}

// cpu's H, Hᵀ and FBP on the scene's acquisition, then every other backend and interpolation.
int crosscheck(CrosscheckContext& ctx) {
  const OatConfig c = OatConfig::from_scene(ctx.scene);
  require_host_memory(estimate_memory(c), "oat crosscheck");
  const Acquisition acq = acquire(c);
  const OatGeometry& g = acq.geometry;
  const std::vector<double> x = acq.simulated ? acq.phantom : std::vector<double>(g.grid.count(), 1.0);
  const std::vector<double> p = deconvolve_eir(g, acq.data, c.deconvolution_cutoff_mhz);
  auto evaluate = [&](const std::string& name, Interpolation interp) {
    ModelOptions mo = c.model;
    mo.interpolation = interp;
    FbpOptions fo = c.fbp;
    fo.interpolation = interp;
    auto model = BackendRegistry<Model>::instance().create(name);
    model->configure(g, mo);
    auto fbp = BackendRegistry<Fbp>::instance().create(name);
    fbp->configure(g, fo);
    std::vector<double> hx(g.data_size()), hty(g.grid.count()), img(g.grid.count());
    auto timer = ctx.report.time("operators." + name + "." + to_string(interp));
    model->forward(x, hx);
    model->adjoint(acq.data, hty);
    fbp->reconstruct(p, img);
    return std::array<std::vector<double>, 3>{hx, hty, img};
  };
  if (c.model.kind == ModelKind::sph) {  // H_sph's rows (FBP is H_int's crosscheck)
    CrosscheckTable table("oat", str_cat(g.transducer_count(), " transducers, ", g.grid.count(), " voxels: H_sph, H_sphᵀ"));
    crosscheck_sph(table, c, g, x, acq.data);
    return table.finish(ctx.report);
  }
  const auto ref = evaluate("cpu", Interpolation::exact);
  CrosscheckTable table("oat", str_cat(g.transducer_count(), " transducers × ", g.time.samples, " samples, ",
                                       g.grid.dims[0], "x", g.grid.dims[1], "x", g.grid.dims[2],
                                       " voxels: H, Hᵀ, FBP"));
  run_backends<Model>(table, [&](const std::string& name) {
    for (const Interpolation interp : {Interpolation::exact, Interpolation::hardware})
      table.run(name, to_string(interp), [&] {
        const auto r = evaluate(name, interp);
        const double tol = interp == Interpolation::exact ? kExactTolerance : kHardwareTolerance;
        return CrosscheckErrors{{"forward_rel_l2", relative_l2(r[0], ref[0]), tol},
                                {"adjoint_rel_l2", relative_l2(r[1], ref[1]), kExactTolerance},
                                {"fbp_rel_l2", relative_l2(r[2], ref[2]), tol}};
      });
  });
  return table.finish(ctx.report);
}

const ProblemRegistrar kRegister({"oat",
                                  "3D optoacoustic tomography ([Wang2013]): exact blurred-sphere data, FBP, "
                                  "H_int = H_eir·D·H_srt and its adjoint, PLS by CG",
                                  run, crosscheck, [] {
                                    std::vector<std::pair<std::string, Availability>> out;
                                    auto& reg = BackendRegistry<Model>::instance();
                                    for (const auto& n : reg.names()) out.emplace_back(n, reg.available(n));
                                    return out;
                                  },
                                  /*multi_device=*/true,  // FBP, H_int (cpu, cuda) and H_sph
                                  [](const Scene& s) { (void)OatConfig::from_scene(s); }});

}  // namespace

}  // namespace tomo::oat
