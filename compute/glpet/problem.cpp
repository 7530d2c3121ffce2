// The glpet problem [Toth2010]: simulate with the independent Monte-Carlo,
// reconstruct with ML-EM on the chosen backend, write images and the report; and the
// cross-check of every available backend against the cpu reference.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <span>

#include <nlohmann/json.hpp>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/memory.hpp"
#include "compute/core/progress.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/scene.hpp"
#include "compute/glpet/crosscheck.hpp"
#include "compute/glpet/data_io.hpp"
#include "compute/glpet/measure.hpp"
#include "compute/glpet/memory.hpp"
#include "compute/glpet/metrics.hpp"
#include "compute/glpet/mlem.hpp"
#include "compute/pet/prior.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "compute/glpet/multi_run.hpp"
#include "compute/glpet/previews.hpp"
#include "compute/glpet/run_terms.hpp"
#include "compute/glpet/config.hpp"
#include "compute/core/output_format.hpp"
#include "compute/io/image_output.hpp"
#include "compute/io/output_dir.hpp"
#include "compute/io/png.hpp"

namespace tomo::glpet {

namespace {

// The images of a run: reconstruction, truth (when the scene has a phantom) and sensitivity
// (.nii + MIP .png), measured and estimated atlases, and the centre's correspondence image.
void write_outputs(OutputDir& out, const SystemModel& sys, const VolumeF& x, const MlemResult& res,
                   std::span<const float> counts, const VolumeF* truth) {
  VolumeF sens(sys.grid);
  sens.data = res.sensitivity;
  write_image(out, "activity", x, {"activity (ML-EM)", "a.u."});
  write_mip_png(out.file("activity_mip.png"), x, "activity (ML-EM)", "a.u.", ColorMap::Hot);
  if (truth) {
    write_image(out, "phantom_activity", *truth, {"phantom activity", "a.u."});
    write_mip_png(out.file("phantom_activity_mip.png"), *truth, "phantom activity", "a.u.", ColorMap::Hot);
  }
  write_image(out, "sensitivity", sens, {"sensitivity", "detection prob."});
  write_mip_png(out.file("sensitivity_mip.png"), sens, "sensitivity", "detection prob.", ColorMap::Viridis);
  write_atlas_png(out.file("atlas_measured.png"), sys.scanner, counts, "measured LOR counts");
  write_atlas_png(out.file("atlas_estimated.png"), sys.scanner, res.estimate, "estimated LOR counts (ML-EM)");
  const auto& d = sys.grid.dims;
  write_correspondence_png(out.file("correspondence_centre.png"), sys, 0,
                           sys.grid.centre(d[0] / 2, d[1] / 2, d[2] / 2));
}

// glpet.data.write: the measured counts in the user-facing formats (docs/glpet.md §5).
void write_data(OutputDir& out, const GlpetScene& g, std::span<const float> counts) {
  const Scanner& sc = g.system.scanner;
  for (const std::string& name : g.data.write) {
    const std::string ext = std::filesystem::path(name).extension().string();
    if (ext == ".npy" || ext == ".nii") {
      write_counts(out.file(name), sc, counts);
    } else {
      const auto events = listmode_events(sc, counts);
      if (ext == ".lm") write_listmode_binary(out.file(name), sc, events);
      else write_listmode_text(out.file(name), events);
    }
  }
}

void record_data(RunContext& ctx, const Measurement& m) {
  const McResult& mc = m.mc;
  double counts = 0;
  for (float c : mc.counts) counts += c;
  ctx.report.set_metric("measured_counts", counts);
  ctx.report.set("data_source", m.source);
  if (!m.simulated) return;
  ctx.report.set("mc_device", std::string(enum_name(kMcDeviceNames, m.mc_device)));
  ctx.report.set_metric("mc_histories", double(mc.histories));
  ctx.report.set_metric("mc_detected", double(mc.detected));
  ctx.report.set_metric("mc_geometric_fraction", double(mc.geometric) / double(mc.histories));
  log_info("glpet: Monte-Carlo ", mc.histories, " pairs, ", mc.detected, " detected, ", counts, " counts");
}

// Scale-free metrics of the final image against the phantom: sphere contrasts, centroid.
void record_image_metrics(RunContext& ctx, const GlpetScene& g, const VolumeF& x, const VolumeF& truth) {
  for (const auto& c : sphere_contrasts(g.activity, x.grid, x.data, truth.data)) {
    ctx.report.set_metric(c.name + "_contrast", c.contrast);
    ctx.report.set_metric(c.name + "_contrast_true", c.contrast_true);
    ctx.report.set_metric(c.name + "_recovery", c.recovery);
  }
  const Vec3 cx = centroid(x.grid, x.data), ct = centroid(x.grid, truth.data);
  ctx.report.set_metric("centroid_error_mm", norm(sub(cx, ct)));
}

// The cpu backend's cost, for "auto" falling back to it: line samples of the sensitivity and of
// each iteration's forward and back projection. Every voxel sample traces R²·N_a·N_t lines per
// pair; a line costs about 14 ray-march samples of set-up, plus K with attenuation. Rate measured
// on the cpu backend (24³ voxels, R = 2, K = 1…64): about 2e8 line samples per core-second.
WorkEstimate estimate_work(const Scene& s) {
  const Scanner sc = read_scanner(s);
  const auto dims = s.get<std::array<int, 3>>("glpet.voxels", {128, 128, 128});
  const double R = s.get<int>("glpet.R", 4), N = s.get<int>("glpet.N", 1), K = s.get<int>("glpet.K", 32);
  const double passes = 1 + 2.0 * s.get<int>("glpet.iterations", 10);
  double lines = 0;
  for (const ModulePair& p : sc.pairs) lines += R * R * p.n_a() * p.n_t();
  const double per_line = 14 + (s.array_size("glpet.attenuation") > 0 ? K : 0);
  return {.units = passes * double(dims[0]) * dims[1] * dims[2] * N * lines * per_line, .cpu_units_per_core_s = 2e8};
}

// The run's projector options. With OSEM over subsets of whole module pairs every pass runs on
// the subsets' own projectors, which keep their share of the system matrix; the run's projector
// only makes the sensitivity and the final estimate, so an automatic cache of the whole matrix
// would only double the device memory.
ProjectorOptions run_projector_options(const GlpetScene& g) {
  ProjectorOptions o = g.projector;
  const int S = g.pet.recon.subsets;
  if (S > 1 && o.system_cache == Use::automatic && !pair_subsets(g.system.scanner, S).empty())
    o.system_cache = Use::off;
  return o;
}

void run(RunContext& ctx) {
  ctx.out.set_image_formats(output_formats(ctx.scene));  // output_format: NIfTI and/or Interfile
  require_host_memory(estimate_memory(ctx.scene, false), "glpet");
  auto& reg = BackendRegistry<Projector>::instance();
  const std::string backend = reg.resolve(ctx.backend, estimate_work(ctx.scene));
  const std::string gpus = requested_gpus(ctx.scene);
  if (!gpus.empty()) check_multi_device(backend, gpus);  // before the simulation: bad flags fail at once
  const Measurement m = measure(ctx.scene, backend, gpus);  // measured data: the user's file or the independent model
  const GlpetScene& g = m.scene;
  const McResult& mc = m.mc;
  ctx.report.add_timing(m.simulated ? "simulate" : "read_data", m.simulate_ms);
  const SystemModel& sys = g.system;
  ctx.report.set("backend", backend);
  ctx.report.set("glpet", {{"voxels", sys.grid.dims},
                           {"voxel_mm", sys.grid.voxel_mm},
                           {"lors", sys.lor_count()},
                           {"pairs", sys.scanner.pairs.size()},
                           {"modules", sys.scanner.module_count()},
                           {"R", sys.R},
                           {"N", sys.N},
                           {"K", sys.K},
                           {"iterations", g.iterations}});
  log_info("glpet: ", sys.grid.dims[0], "x", sys.grid.dims[1], "x", sys.grid.dims[2], " voxels, ",
           sys.scanner.pairs.size(), " module pairs, ", sys.lor_count(), " LORs, R=", sys.R, " N=", sys.N, " K=", sys.K,
           ", backend ", backend);
  {
    auto w = ctx.report.stage("writing");
    record_data(ctx, m);
    write_data(ctx.out, g, mc.counts);
  }

  // The truth in the reconstruction's units: expected emitted pairs per voxel. Known only
  // for simulated data; with a file and a phantom only the scale-free metrics are reported.
  const bool truth_known = g.has_phantom && m.simulated;
  double total = 0;
  for (float a : g.activity_volume.data) total += a;
  VolumeF truth = g.activity_volume;
  if (truth_known)
    for (float& a : truth.data) a = float(a / total * double(mc.histories) * mc.scale);

  std::unique_ptr<Projector> op;
  if (gpus.empty()) {
    op = reg.create(backend);
    auto t = ctx.report.time("configure");
    op->configure(sys, run_projector_options(g));
  }
  std::vector<double> nrmse_per_it;
  nlohmann::json recovery_per_it = nlohmann::json::object();
  const pet::ReconOptions& recon = g.pet.recon;
  if (!gpus.empty() && (recon.algorithm != pet::Algorithm::mlem || !g.pet.initial_image.empty()))
    throw InputError(str_cat("glpet: glpet.algorithm = \"", enum_name(pet::kAlgorithmNames, recon.algorithm),
                             "\" and glpet.initial_image run on one device; the multi-device run (--gpus) is ML-EM "
                             "from a flat start"));
  const std::vector<float> x0 = [&] {
    if (g.pet.initial_image.empty()) return std::vector<float>{};
    const auto v = pet::read_initial_image(g.pet.initial_image, sys.grid.dims, "glpet.initial_image");
    return std::vector<float>(v.begin(), v.end());
  }();
  Progress progress(str_cat("glpet ", pet::algorithm_title(recon.algorithm)),
                    static_cast<long>(g.iterations) * recon.subsets);
  MlemOptions opt;
  opt.iterations = g.iterations;
  opt.recon = recon;
  opt.prior_backend = pet::prior_backend_for(backend);
  opt.system = &sys;
  opt.make_projector = [&](const SystemModel& m) {  // OSEM: a projector per subset of module pairs
    auto p = reg.create(backend);
    p->configure(m, g.projector);
    return p;
  };
  opt.on_subset = [&](const pet::Step& st) {
    if (st.position < st.positions)
      progress.step(1, str_cat("iteration ", st.iteration, ", subset ", st.position, "/", st.positions));
  };
  opt.sensitivity_threshold = g.sensitivity_threshold;
  opt.outside_fov = outside_field_of_view(sys.grid, g.fov);
  opt.report = &ctx.report;
  // The normalisation, randoms and scatter terms per LOR (docs/pet.md; attenuation is in A).
  const pet::ForwardTerms terms = lor_terms(g, mc.counts);
  if (!terms.empty()) {
    if (!gpus.empty())
      throw InputError("glpet: the normalisation, randoms and scatter terms run on one device, not with --gpus");
    opt.terms = &terms;
  }
  opt.on_iteration = [&](int it, const BackendBuffer& x) {
    if (std::find(g.save_iterations.begin(), g.save_iterations.end(), it) != g.save_iterations.end()) {
      VolumeF xi(sys.grid);
      xi.data = download(x);
      write_image(ctx.out, str_cat("activity_iteration_", it), xi, {"activity", "a.u."});
    }
    if (!g.has_phantom) {
      progress.step(1);
      return true;
    }
    const std::vector<float> hx = download(x);
    for (const auto& c : sphere_contrasts(g.activity, sys.grid, hx, truth.data))
      recovery_per_it[c.name + "_recovery"].push_back(c.recovery);
    if (!truth_known) {
      progress.step(1);
      return true;
    }
    nrmse_per_it.push_back(nrmse(hx, truth.data));
    progress.step(1, str_cat("NRMSE ", nrmse_per_it.back()));
    return true;
  };
  const MlemResult res = [&] {
    auto st = ctx.report.stage("iterations");  // its sensitivity pass counts to that stage
    return gpus.empty() ? run_mlem(*op, mc.counts, x0, opt)
                        : reconstruct_on_devices(ctx, g, mc.counts, backend, gpus, opt);
  }();
  progress.finish();
  ctx.report.set_metric("sensitivity_masked_voxels", double(res.masked));

  VolumeF x(sys.grid);
  x.data = res.x;
  {
    auto w = ctx.report.stage("writing");
    write_outputs(ctx.out, sys, x, res, mc.counts, truth_known ? &truth : nullptr);
  }

  if (!g.has_phantom) return;
  if (truth_known) {
    ctx.report.set("nrmse_per_iteration", nrmse_per_it);
    if (!nrmse_per_it.empty()) ctx.report.set_metric("nrmse", nrmse_per_it.back());
  }
  ctx.report.set("sphere_recovery_per_iteration", recovery_per_it);
  record_image_metrics(ctx, g, x, truth);
}

const ProblemRegistrar kRegister({"glpet",
                                  "PET between detector-module planes: correspondence images, LOR atlas, "
                                  "mip-reduction back-projection, ML-EM [Toth2010]",
                                  run, run_crosscheck, list_backends_of<Projector>(), /*multi_device=*/true,
                                  [](const Scene& s) {
                                    // The scene's volumes are voxelised while it is read: sized first.
                                    require_host_memory(estimate_memory(s, false), "glpet");
                                    (void)read_glpet_scene(s);
                                    s.declare_optional({"glpet.multi_gpu", "glpet.multi_gpu_split"});  // multi_run.cpp
                                  }});

}  // namespace
}  // namespace tomo::glpet
