// The `safir` problem ([Locans2017] §5): simulate or read list-mode events, compute the sensitivity
// over all crystal pairs, reconstruct every time frame with list-mode ML-EM on the chosen backend,
// analyse the images (E ± ΔE, significance map, spots) and write NIfTI files and a report;
// `crosscheck` compares every backend's projections, ML-EM step and analysis with cpu.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <optional>
#include <span>

#include <nlohmann/json.hpp>

#include "compute/core/crosscheck.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/output_format.hpp"
#include "compute/core/progress.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/output_dir.hpp"
#include "compute/multi/ranks.hpp"
#include "compute/safir/analysis.hpp"
#include "compute/safir/castor_geometry.hpp"
#include "compute/safir/config.hpp"
#include "compute/safir/corrections.hpp"
#include "compute/safir/list_io.hpp"
#include "compute/safir/memory.hpp"
#include "compute/safir/output.hpp"
#include "compute/safir/run_ranks.hpp"
#include "compute/safir/simulator.hpp"
#include "compute/safir/subsets.hpp"
#include "compute/pet/prior.hpp"

namespace tomo::safir {

namespace {

// The generator of a run's events (safir.simulator): "host" (simulate()) or "cuda". "auto" takes
// the cuda generator when the reconstruction runs on cuda and a CUDA device is there.
std::string choose_simulator(const SafirConfig& c, const std::string& backend) {
  const auto& generators = BackendRegistry<EventGenerator>::instance();
  switch (c.simulator) {
    case SimulatorChoice::host:
      return "host";
    case SimulatorChoice::cuda: {
      const Availability a = generators.available("cuda");
      if (!a.ok) throw UnavailableError(str_cat("safir.simulator = \"cuda\": ", a.why));
      return "cuda";
    }
    case SimulatorChoice::automatic:
      break;
  }
  return backend == "cuda" && generators.available("cuda").ok ? "cuda" : "host";
}

// `simulator`: "host" or a registered EventGenerator, run on `device` (a CUDA index; < 0: the
// current one).
ListMode load_or_simulate(const SafirConfig& c, RunReport& report, const std::string& simulator = "host",
                          int device = -1) {
  auto timer = report.time("simulate");
  if (!c.crystal_map.empty()) check_crystal_map(c.crystal_map, c.scanner);
  if (!c.events_file.empty()) {
    ListMode lm = read_list_mode(c.events_file, c.scanner);
    log_info("safir: read ", lm.events.size(), " events (", lm.delayed, " delayed) from ", c.events_file);
    if (lm.events.empty()) throw InputError("safir: " + c.events_file + " (safir.events_file) holds no prompt events");
    // An event joining a crystal to itself has no line: events that are all such reconstruct nothing.
    const bool any_line = std::any_of(lm.events.begin(), lm.events.end(), [](const Event& e) { return e.a != e.b; });
    if (!any_line)
      throw InputError(str_cat("safir: ", c.events_file, " (safir.events_file): every one of its ", lm.events.size(),
                               " prompt events joins a crystal to itself: nothing to reconstruct"));
    return lm;
  }
  SimulationStats stats;
  ListMode lm;
  if (simulator == "host") {
    lm = simulate(c.scanner, c.phantom, c.simulation, &stats);
  } else {
    configure_on_device(device, [&] {
      auto generator = BackendRegistry<EventGenerator>::instance().create(simulator);
      lm = generator->simulate(c.scanner, c.phantom, c.simulation, &stats);
    });
  }
  report.set("simulator", simulator);
  log_info("safir: simulated ", lm.events.size(), " events from ", stats.emissions, " annihilations, ", stats.randoms,
           " randoms, ", stats.scattered, " scattered (seed ", c.simulation.seed, ", ", simulator, " generator)");
  report.set_metric("emissions", static_cast<double>(stats.emissions));
  return lm;
}

nlohmann::json excess_json(const Excess& e) {
  return {{"S", e.S}, {"B", e.B}, {"E", e.E}, {"dE", e.dE}, {"E_over_dE", e.significance()}};
}

// The cpu backend's cost, for "auto" falling back to it, in LOR traces: the sensitivity traces
// every crystal pair (an eighth of them under the 8-fold symmetry), an iteration traces each
// event forward and back (about ten LOR traces of the sensitivity's: the event's own line
// samples the box at the matrix distance). Rate measured on the cpu backend (the default
// scanner and box, one thread): about 1e6 LOR traces per core-second. Events read from a file
// are not counted (their number is known once read).
WorkEstimate estimate_work(const SafirConfig& c) {
  const double pairs = c.scanner.lor_count();
  const bool symmetric = c.sensitivity == SensitivityMode::symmetric && sensitivity_symmetry_applies(c.scanner, c.box);
  const double events = c.events_file.empty() ? double(c.simulation.events) : 0.0;
  const double passes = c.mlem.halve_events ? std::min(2.0, double(c.mlem.iterations)) : double(c.mlem.iterations);
  return {.units = (symmetric ? pairs / 8 : pairs) + 10.0 * events * passes, .cpu_units_per_core_s = 1e6};
}

void run(RunContext& ctx) {
  ctx.out.set_image_formats(output_formats(ctx.scene));  // output_format: NIfTI and/or Interfile
  const SafirConfig c = SafirConfig::from_scene(ctx.scene);
  require_host_memory(estimate_memory(c, expected_frames(c)), "safir run");
  const Grid3 grid = c.box.grid();
  auto& reg = BackendRegistry<ListModeOperator>::instance();
  // The backends' probes and the operator's device (a CUDA context: about 0.1 s) count to startup.
  std::optional<RunReport::Timer> contexts;
  contexts.emplace(ctx.report, "contexts");
  const std::string backend = reg.resolve(ctx.backend, estimate_work(c));
  // Several ranks (--gpus, mpirun): each takes its share of the pairs and events (run_ranks.hpp);
  // this process's own operator then only analyses the images.
  const Ranks ranks = make_ranks(backend, runtime_options().gpus, "safir");
  if (ranks.team) check_ranks_compose(c);
  auto op = reg.create(backend);
  contexts.reset();
  {
    auto t = ctx.report.time("configure");
    op->configure(c.scanner, c.box, c.options);
  }
  ctx.report.set("backend", backend);
  if (!ranks.team) ctx.report.add_device(op->describe());
  for (const auto& name : ranks.names) ctx.report.add_device(name);

  // With several ranks the events are made once, on the first rank's device (under mpirun each
  // process makes its chunks on its own device and the processes gather them).
  const std::string simulator = c.events_file.empty() ? choose_simulator(c, backend) : "host";
  ListMode lm = load_or_simulate(c, ctx.report, simulator,
                                 ranks.team && !ranks.devices.empty() ? ranks.devices.front() : -1);
  const auto frames = split_frames(lm.time_s, lm.events.size(), lm.duration_s, c.frame_s);
  // Events from a file set their own duration: the frames' images are checked again, before the
  // sensitivity (minutes on a large scanner) and before any frame image is allocated.
  if (frames.size() > expected_frames(c)) require_host_memory(estimate_memory(c, frames.size()), "safir run");
  // The correction terms (docs/pet.md): the sensitivity then weighs each LOR by ε_a·ε_b·exp(−∫μ).
  const Corrections corr(c.corrections, c.scanner, lm.events.size());
  if (c.write_events == EventsFile::clm) {
    write_clm_safir(ctx.out.file("events.clm.safir"), lm, c.scanner);
    write_crystal_map(ctx.out.file("crystal_map.txt"), c.scanner);
  } else if (c.write_events == EventsFile::castor) {
    const auto cdh = ctx.out.file("events.cdh");
    (void)ctx.out.file("events.cdf");  // written beside the header
    // With the run's correction terms as CASToR's per-event fields, in acquisition order.
    CastorCorrections fields;
    if (corr.any()) {
      std::vector<std::size_t> acquisition_order(lm.events.size());
      std::iota(acquisition_order.begin(), acquisition_order.end(), std::size_t{0});
      const pet::ForwardTerms t = corr.event_terms(lm.events, acquisition_order, frames, lm.delayed);
      fields = castor_corrections(t.multiplicative, t.additive, lm.duration_s);
    }
    write_castor(cdh, lm, c.scanner, fields);
    // The scanner for CASToR's config/scanner folder, named as the header's "Scanner name".
    write_castor_geometry(ctx.out.file(castor_scanner_name(c.scanner) + ".geom"), c.scanner, c.box);
  }

  // The start image (read before the sensitivity, which takes minutes on a large scanner).
  const std::vector<double> start = c.pet.initial_image.empty()
                                        ? std::vector<double>(grid.count(), 1.0)
                                        : pet::read_initial_image(c.pet.initial_image, grid.dims, "safir.initial_image");
  const pet::ReconOptions& recon = c.pet.recon;
  Progress progress(str_cat("safir ", pet::algorithm_title(recon.algorithm), " (", backend, ")"),
                    static_cast<long>(frames.size()) * c.mlem.iterations * recon.subsets);
  const auto progress_step = [&](std::size_t k, const pet::Step& st) {
    progress.step(1, str_cat("frame ", k + 1, "/", frames.size(), ", iteration ", st.iteration, ", subset ",
                             st.position, "/", st.positions));
  };
  RanksOutput on_ranks;
  if (ranks.team) {
    auto in_ranks = ctx.report.stage("iterations");  // the ranks' set-up and sensitivity count to their own
    on_ranks = reconstruct_on_ranks(
        ranks, {.config = c, .backend = backend, .events = lm.events, .delayed = lm.delayed, .frames = frames,
                .corrections = corr, .start = start},
        ctx.report, progress_step);
  }
  std::vector<double> s = std::move(on_ranks.sensitivity);
  if (!ranks.team) {
    auto timer = ctx.report.time("sensitivity");
    s = corr.multiplicative() ? compute_weighted_sensitivity(*op, c.scanner, c.box,
                                                             [&](std::uint32_t a, std::uint32_t b) {
                                                               return corr.lor_factor(a, b);
                                                             })
                              : compute_sensitivity(*op, c.scanner, c.box, c.sensitivity);
  }
  // Voxels outside the scanner's field of view keep s = 0, which every backend's step holds at 0.
  std::vector<double> s_fov = s;
  if (c.fov_mask) {
    const std::size_t n = zero_outside<double>(s_fov, outside_field_of_view(grid, field_of_view(c.scanner)));
    ctx.report.set_metric("fov_masked_voxels", double(n));
  }
  if (!ranks.team) op->set_sensitivity(s_fov);
  // The reconstruction layer (docs/pet.md): each frame's events interleaved into the subsets.
  pet::ForwardTerms terms;
  if (!ranks.team) {
    auto timer = ctx.report.time("upload");
    // One subset keeps the acquisition order: the list goes up as it is (no reordered copy, no
    // permutation: 13.9 M events are 111 MB of each, on one thread).
    FillVector<Event> reordered;
    if (recon.subsets > 1) reordered = order_for_subsets(lm.events, frames, recon.subsets);
    const std::span<const Event> ordered = recon.subsets > 1 ? std::span<const Event>(reordered)
                                                             : std::span<const Event>(lm.events);
    if (corr.any())
      terms = corr.event_terms(ordered, subset_permutation(lm.events.size(), frames, recon.subsets), frames, lm.delayed);
    op->set_events(ordered);
  }
  std::unique_ptr<pet::PriorOperator> prior;
  if (pet::uses_prior(recon.algorithm) && !ranks.team)
    prior = pet::make_prior(backend, {grid.dims, grid.voxel_mm}, recon.prior, s_fov);
  std::vector<std::vector<std::vector<double>>> saved(c.save_iterations.size());
  std::vector<std::vector<double>> images, significance;
  nlohmann::json frames_json = nlohmann::json::array();
  double recon_ms = 0, analysis_ms = 0;
  auto iterations_stage = std::make_unique<RunReport::StageScope>(ctx.report, "iterations");  // with the analysis
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const Frame& f = frames[k];
    std::array<std::size_t, 4> labels{};
    if (ranks.team) {  // reconstructed above: the analysis runs on this process's operator
      RanksFrame& fr = on_ranks.frames[k];
      for (std::size_t i = 0; i < fr.saved.size(); ++i)
        if (!fr.saved[i].empty()) saved[i].push_back(std::move(fr.saved[i]));
      op->set_image(fr.image);
      op->synchronize();
      recon_ms += fr.reconstruction_ms;
      labels = fr.labels;
    } else {
      // Uniform randoms: the delayed coincidences of this frame's share, spread over all LORs.
      const double share = lm.events.empty() ? 0.0 : double(f.count) / double(lm.events.size());
      op->set_randoms_per_lor(corr.any() ? 0.0 : double(lm.delayed) * share / c.scanner.lor_count());
      const auto t0 = std::chrono::steady_clock::now();
      auto save = [&](int t) {
        const auto at = std::find(c.save_iterations.begin(), c.save_iterations.end(), t);
        if (at != c.save_iterations.end()) saved[at - c.save_iterations.begin()].push_back(op->image());
      };
      if (c.mlem.halve_events) {
        run_mlem(*op, grid.count(), f.first, f.count, c.mlem, [&](int t, std::size_t active) {
          progress.step(1, str_cat("frame ", k + 1, "/", frames.size(), ", iteration ", t, ", ", active, " events"));
          save(t);
        });
      } else {
        FrameSubsets data(*op, s_fov, f.first, f.count, recon.subsets, &terms);
        if (c.pet.initial_image.empty() && !terms.additive.empty()) {
          // With additive terms a flat start is put at the scale of the frame's trues.
          data.set_image(flat_start_image(s_fov, std::span<const double>(terms.additive).subspan(f.first, f.count)));
        } else {
          data.set_image(start);
        }
        pet::reconstruct(data, recon, prior.get(),
                         {.after_subset =
                              [&](const pet::Step& st) {
                                progress.step(1, str_cat("frame ", k + 1, "/", frames.size(), ", iteration ", st.iteration,
                                                         ", subset ", st.position, "/", st.positions));
                              },
                          .after_iteration =
                              [&](int t) {
                                save(t);
                                return true;
                              }});
      }
      op->synchronize();
      recon_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      labels = op->label_counts();
    }
    const auto t1 = std::chrono::steady_clock::now();
    const SphereSums sums = op->sphere_sums(c.analysis.r_in_mm, c.analysis.r_out_mm);
    analysis_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
    images.push_back(op->image());
    const double kappa = counts_per_unit(images.back(), static_cast<double>(f.count));
    const ExcessMaps maps = excess_maps(sums, kappa);
    significance.push_back(maps.significance);
    nlohmann::json fj = {{"frame", k}, {"t0_s", f.t0}, {"t1_s", f.t1}, {"events", f.count},
                         {"counts_per_unit", kappa}};
    fj["labels"] = {{"skip", labels[0]}, {"x", labels[1]}, {"y", labels[2]}, {"z", labels[3]}};
    nlohmann::json spots = nlohmann::json::array();
    for (const Spot& sp : find_spots(maps, sums, grid, kappa, c.analysis.threshold, 20))
      spots.push_back({{"voxel", sp.voxel}, {"mm", sp.mm}, {"excess", excess_json(sp.excess)}});
    fj["spots"] = spots;
    nlohmann::json at = nlohmann::json::array();
    for (const auto& p : c.analysis.positions)
      at.push_back({{"mm", p},
                    {"excess", excess_json(excess_at(images.back(), grid, p, c.analysis.r_in_mm, c.analysis.r_out_mm, kappa))}});
    fj["positions"] = at;
    frames_json.push_back(fj);
  }
  progress.finish();
  iterations_stage.reset();
  auto writing_stage = ctx.report.stage("writing");  // to the end: images, previews, metrics
  ctx.report.set_metric("reconstruction_ms", recon_ms);
  ctx.report.set_metric("analysis_ms", analysis_ms);

  write_frames(ctx.out, "image", grid, images, c.frame_s);
  write_frames(ctx.out, "significance", grid, significance, c.frame_s);
  write_frames(ctx.out, "sensitivity", grid, {s}, 0.0);
  for (std::size_t i = 0; i < saved.size(); ++i)
    write_frames(ctx.out, str_cat("image_iteration_", c.save_iterations[i]), grid, saved[i], c.frame_s);
  write_slice_png(ctx.out.file("image.png"), grid, images.back());
  ctx.report.set_metric("events", static_cast<double>(lm.events.size()));
  ctx.report.set_metric("delayed", static_cast<double>(lm.delayed));
  ctx.report.set_metric("frames", static_cast<double>(frames.size()));
  ctx.report.set_metric("iterations", c.mlem.iterations);
  ctx.report.set("algorithm", std::string(enum_name(pet::kAlgorithmNames, recon.algorithm)));
  ctx.report.set_metric("subsets", recon.subsets);
  if (c.events_file.empty()) {
    const VolumeD ph = c.phantom.rasterize(grid);
    write_frames(ctx.out, "phantom", grid, {ph.data}, 0.0);
    std::vector<double> sum(grid.count(), 0.0);
    for (const auto& im : images)
      for (std::size_t j = 0; j < sum.size(); ++j) sum[j] += im[j];
    ctx.report.set_metric("correlation_image_phantom", correlation(sum, ph.data));
    log_info("safir: correlation(image, phantom) = ", correlation(sum, ph.data));
  }
  ctx.report.set("safir_frames", frames_json);
}

// One backend's forward, back-projection, ML-EM step and sphere sums on the first events.
struct Outputs {
  std::vector<double> forward, back, step, inner, shell;
};

Outputs run_backend(const std::string& name, const SafirConfig& c, const ListMode& lm, const std::vector<double>& s,
                    const std::vector<double>& image, RunReport& report) {
  auto op = BackendRegistry<ListModeOperator>::instance().create(name);
  op->configure(c.scanner, c.box, c.options);
  op->set_sensitivity(s);
  op->set_events(lm.events);
  op->set_image(image);
  Outputs o;
  auto timer = report.time("crosscheck." + name);
  o.forward = op->forward();
  o.back = op->back({});
  op->iterate();
  o.step = op->image();
  const SphereSums sums = op->sphere_sums(c.analysis.r_in_mm, c.analysis.r_out_mm);
  o.inner = sums.inner;
  o.shell = sums.shell;
  return o;
}

int crosscheck(CrosscheckContext& ctx) {
  SafirConfig c = SafirConfig::from_scene(ctx.scene);
  c.simulation.events = std::min(c.simulation.events, c.crosscheck_events);
  require_host_memory(estimate_memory(c, 1), "safir crosscheck");
  ListMode lm = load_or_simulate(c, ctx.report);
  if (lm.events.size() > c.crosscheck_events) lm.events.resize(c.crosscheck_events);
  // A smooth positive image and a sensitivity of ones: the comparison needs no all-pairs run.
  const Grid3 g = c.box.grid();
  std::vector<double> image(g.count()), s(g.count(), 1.0);
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) image[g.index(i, j, k)] = 1.0 + 0.5 * std::sin(0.3 * i + 0.2 * j + 0.1 * k);
  const Outputs ref = run_backend("cpu", c, lm, s, image, ctx.report);
  CrosscheckTable table("safir", str_cat(g.dims[0], "x", g.dims[1], "x", g.dims[2], " voxels, ", lm.events.size(),
                                         " events: forward, back, one ML-EM step, sphere sums"));
  run_backends<ListModeOperator>(table, [&](const std::string& name) {
    table.run(name, "float32", [&] {
      const Outputs o = run_backend(name, c, lm, s, image, ctx.report);
      return CrosscheckErrors{{"forward", relative_l2(o.forward, ref.forward), 1e-4},
                              {"back", relative_l2(o.back, ref.back), 1e-4},
                              {"mlem_step", relative_l2(o.step, ref.step), 1e-4},
                              {"sphere_sums", relative_l2(o.inner, ref.inner) + relative_l2(o.shell, ref.shell), 1e-5}};
    });
  });
  return table.finish(ctx.report);
}

const ProblemRegistrar kRegister({"safir",
                                  "SAFIR list-mode PET ([Locans2017] §5): slice-wise ray tracing, ML-EM, frames, E ± ΔE analysis",
                                  run, crosscheck, list_backends_of<ListModeOperator>(), /*multi_device=*/true,
                                  [](const Scene& s) { (void)SafirConfig::from_scene(s); }});

}  // namespace

}  // namespace tomo::safir
