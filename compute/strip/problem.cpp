// The `strip` problem ([Bialas2015]): simulate or read events, run list-mode ML-EM on the chosen
// backend, write ρ' after chosen iterations and the final ρ, ρ' (.nii + .png) and metrics;
// `crosscheck` compares one iteration of every available backend with cpu.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "compute/core/crosscheck.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
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
#include "compute/strip/attenuation.hpp"
#include "compute/strip/background.hpp"
#include "compute/strip/config.hpp"
#include "compute/strip/event_io.hpp"
#include "compute/strip/memory.hpp"
#include "compute/strip/mlem.hpp"
#include "compute/strip/normalisation.hpp"
#include "compute/strip/run_terms.hpp"
#include "compute/strip/simulator.hpp"
#include "compute/strip/subsets.hpp"
#include "compute/pet/prior.hpp"
#include "compute/multi/ranks.hpp"
#include "compute/multi/summed_subsets.hpp"

namespace tomo::strip {

namespace {

constexpr double kCrosscheckTolerance = 1e-4;

VolumeF to_volume(const StripGeometry& g, const std::vector<double>& img) {
  VolumeF v(g.grid3());
  for (std::size_t i = 0; i < img.size(); ++i) v.data[i] = static_cast<float>(img[i]);
  return v;
}

// z to the right, y = +R (upper strip) at the top, like seed Fig. 3.
Image2D to_image(const StripGeometry& g, const std::vector<double>& img) {
  Image2D out{g.n_z, g.n_y, std::vector<float>(g.pixel_count())};
  for (int j = 0; j < g.n_y; ++j)
    for (int k = 0; k < g.n_z; ++k)
      out.pixels[static_cast<std::size_t>(g.n_y - 1 - j) * g.n_z + k] = static_cast<float>(img[g.index(j, k)]);
  return out;
}

void write_image(OutputDir& out, const StripGeometry& g, const std::string& stem, const std::vector<double>& img) {
  write_image(out, stem, to_volume(g, img), {stem, "a.u."});
  write_preview(out.file(stem + ".png"), {{to_image(g, img), "z right, y up"}}, {stem, "a.u.", "", ColorMap::Gray, 0, 0});
}

// The generator of a run's events (strip.simulator): "host" (simulate_phantom) or "cuda". "auto"
// takes the cuda generator when the reconstruction runs on cuda and the simulation has no
// attenuation or efficiency (which only the host simulates).
std::string choose_simulator(const StripConfig& c, const std::string& backend, bool corrections) {
  const auto& generators = BackendRegistry<PhantomGenerator>::instance();
  switch (c.simulator) {
    case SimulatorChoice::host:
      return "host";
    case SimulatorChoice::cuda: {
      if (corrections)
        throw InputError("strip.simulator = \"cuda\" simulates neither strip.attenuation_map nor strip.normalisation; "
                         "use \"host\" or \"auto\"");
      const Availability a = generators.available("cuda");
      if (!a.ok) throw UnavailableError(str_cat("strip.simulator = \"cuda\": ", a.why));
      return "cuda";
    }
    case SimulatorChoice::automatic:
      break;
  }
  return backend == "cuda" && !corrections && generators.available("cuda").ok ? "cuda" : "host";
}

// `simulator`: "host" or a registered PhantomGenerator, run on `device` (a CUDA index; < 0: the
// current one).
std::vector<Event> load_or_simulate(const StripConfig& c, RunReport& report, const pet::AttenuationMap* mu = nullptr,
                                    const StripEfficiency* efficiency = nullptr, const std::string& simulator = "host",
                                    int device = -1) {
  auto timer = report.time("simulate");
  if (!c.events_file.empty()) {
    auto ev = read_events(c.events_file);
    log_info("strip: read ", ev.size(), " events from ", c.events_file);
    return ev;
  }
  SimulationStats stats;
  std::vector<Event> ev;
  if (simulator == "host") {
    ev = simulate_phantom(c.geometry, c.resolution, c.phantom, c.events, c.seed, &stats, mu, efficiency);
  } else {
    configure_on_device(device, [&] {
      auto generator = BackendRegistry<PhantomGenerator>::instance().create(simulator);
      ev = generator->simulate(c.geometry, c.resolution, c.phantom, c.events, c.seed, &stats);
    });
  }
  report.set("simulator", simulator);
  if (c.randoms_fraction > 0 || c.scatter_fraction > 0)  // strip.events counts the trues
    ev = add_background(c.geometry, c.resolution, c.phantom, std::move(ev), c.randoms_fraction, c.scatter_fraction,
                        c.seed);
  log_info("strip: simulated ", stats.detected, " events from ", stats.emissions, " emissions (seed ", c.seed, ", ",
           simulator, " generator)");
  report.set_metric("emissions", static_cast<double>(stats.emissions));
  return ev;
}

void run(RunContext& ctx) {
  ctx.out.set_image_formats(output_formats(ctx.scene));  // output_format: NIfTI and/or Interfile
  const StripConfig c = StripConfig::from_scene(ctx.scene);
  require_host_memory(estimate_memory(c), "strip");
  const StripGeometry& g = c.geometry;
  auto& reg = BackendRegistry<ListModeProjector>::instance();
  const std::string backend = reg.resolve(  // cpu cost: ~2e5 event-iterations per core-second (default kernel)
      ctx.backend, {.units = c.events_file.empty() ? double(c.events) * c.iterations : 0, .cpu_units_per_core_s = 2e5});
  // Several ranks (--gpus, mpirun): each reconstructs its share of the events (compute/multi).
  Ranks ranks = make_ranks(backend, runtime_options().gpus, "strip");
  std::unique_ptr<ListModeProjector> op;
  if (!ranks.team) {
    auto t = ctx.report.time("configure");
    op = reg.create(backend);
    op->configure(g, c.resolution, c.options);
  }
  ctx.report.set("backend", backend);
  if (op) ctx.report.add_device(op->describe());
  for (const auto& name : ranks.names) ctx.report.add_device(name);

  // strip.attenuation_map: the object's μ, through which the simulator's pairs pass and which
  // the reconstruction corrects (docs/pet.md).
  std::optional<pet::AttenuationMap> mu;
  if (!c.corrections.attenuation_map.empty()) {
    if (ranks.team) throw InputError("strip: strip.attenuation_map runs on one device (not with --gpus or several ranks)");
    mu = pet::AttenuationMap::read(c.corrections.attenuation_map, "strip.attenuation_map");
  }
  // strip.normalisation: the strips' efficiencies, with which the simulator detects its pairs
  // and which the reconstruction corrects (docs/pet.md).
  std::optional<StripEfficiency> efficiency;
  if (!c.corrections.normalisation.empty()) {
    if (ranks.team) throw InputError("strip: strip.normalisation runs on one device (not with --gpus or several ranks)");
    efficiency = StripEfficiency::from_npy(c.corrections.normalisation, g.L, "strip.normalisation");
  }
  // With several ranks the events are made once (on the first rank's device) and then split.
  const std::string simulator = c.events_file.empty() ? choose_simulator(c, backend, mu || efficiency) : "host";
  const std::vector<Event> events =
      load_or_simulate(c, ctx.report, mu ? &*mu : nullptr, efficiency ? &*efficiency : nullptr, simulator,
                       ranks.team && !ranks.devices.empty() ? ranks.devices.front() : -1);
  if (events.empty())
    throw InputError(c.events_file.empty() ? std::string("strip: the simulation produced no events (strip.events = 0?)")
                                           : "strip: " + c.events_file + " (strip.events_file) holds no events");
  if (c.write_events && c.events_file.empty()) write_events_binary(ctx.out.file("events.lm"), events);

  const std::vector<double> s = [&] {
    auto t = ctx.report.time("sensitivity");
    return sensitivity_image(g);
  }();
  const std::vector<std::uint8_t> outside = c.fov_mask ? outside_field_of_view(g) : std::vector<std::uint8_t>{};
  const std::vector<double> phantom = c.phantom.rasterize(g, 4);
  {
    auto w = ctx.report.stage("writing");
    write_image(ctx.out, g, "phantom", phantom);
    write_image(ctx.out, g, "sensitivity", s);
    write_image(ctx.out, g, "direct", direct_reconstruction(g, events));  // seed Fig. 3b
  }

  if (op && c.pet.recon.subsets <= 1) {  // subsets: each goes to a projector of its own below
    auto timer = ctx.report.time("upload");
    op->set_events(events);
  }
  // The reconstruction layer (docs/pet.md) over ρ', events interleaved into the subsets.
  const pet::ReconOptions& recon = c.pet.recon;
  // strip.randoms, strip.scatter: each event's additive count (background.hpp, docs/pet.md).
  const pet::ForwardTerms terms = background_terms(c, events, s, mu ? &*mu : nullptr, efficiency ? &*efficiency : nullptr);
  if (!terms.empty() && ranks.team)
    throw InputError("strip: strip.randoms and strip.scatter run on one device (not with --gpus or several ranks)");
  // Flat start: every pixel may emit; with additive terms at the trues' level (as glpet, safir).
  const double level =
      terms.empty() ? 1.0
                    : pet::flat_start_level(double(events.size()),
                                            (c.corrections.randoms.fraction + c.corrections.scatter.fraction) *
                                                double(events.size()),
                                            double(g.pixel_count()));
  const std::vector<double> start =
      c.pet.initial_image.empty()
          ? std::vector<double>(g.pixel_count(), level)
          : pet::read_initial_image(c.pet.initial_image, g.grid3().dims, "strip.initial_image");
  const auto make_prior = [&]() -> std::unique_ptr<pet::PriorOperator> {
    if (!pet::uses_prior(recon.algorithm)) return nullptr;
    const Grid3 g3 = g.grid3();
    return pet::make_prior(backend, {g3.dims, g3.voxel_mm}, recon.prior, std::vector<double>(g.pixel_count(), 1.0));
  };
  pet::SubsetPrimitives* data = nullptr;  // the reconstruction's data (rank 0's with several ranks)
  nlohmann::json per_iteration = nlohmann::json::array();
  Progress progress(str_cat("strip ", pet::algorithm_title(recon.algorithm), " (", backend, ")"),
                    static_cast<long>(c.iterations) * recon.subsets);
  std::size_t next_save = 0;
  std::vector<double> rho_prime = start;
  {
    auto timer = ctx.report.time("mlem");
    auto last = std::chrono::steady_clock::now();
    const auto after_iteration = [&](int t) {
      const auto now = std::chrono::steady_clock::now();
      const double iteration_ms = std::chrono::duration<double, std::milli>(now - last).count();
      rho_prime = data->image();
      for (double v : rho_prime)
        if (!std::isfinite(v)) throw Error(str_cat("strip ", pet::algorithm_title(recon.algorithm),
                                                   ": non-finite pixel after iteration ", t));
      const auto rho = rho_from_rho_prime(rho_prime, s, c.sensitivity_threshold, outside);
      const double corr = correlation(rho, phantom);
      per_iteration.push_back({{"iteration", t}, {"iterate_ms", iteration_ms}, {"correlation", corr},
                               {"nrmse", nrmse(rho, phantom)}});
      if (next_save < c.save_iterations.size() && c.save_iterations[next_save] == t) {
        char stem[64];
        std::snprintf(stem, sizeof stem, "rho_prime_iter%03d", t);
        write_image(ctx.out, g, stem, rho_prime);
        ++next_save;
      }
      log_debug("strip: iteration ", t, ", corr ", corr);
      last = std::chrono::steady_clock::now();
      return true;
    };
    const pet::ReconHooks hooks{.after_subset =
                                    [&](const pet::Step& st) {
                                      progress.step(1, str_cat("iteration ", st.iteration, ", subset ", st.position,
                                                               "/", st.positions));
                                    },
                                .after_iteration = after_iteration};
    if (op) {
      // Each subset's events stay in a projector of their own: an OSEM iteration uploads nothing.
      const auto more = [&] {
        auto p = reg.create(backend);
        p->configure(g, c.resolution, c.options);
        return p;
      };
      EventSubsets single(*op, events, recon.subsets, g.pixel_count(),
                          mu || efficiency ? weighted_acceptance(g,
                                                                 [&](double z_u, double z_d) {
                                                                   return (mu ? survival(*mu, g.R, z_u, z_d) : 1.0) *
                                                                          (efficiency ? efficiency->pair(z_u, z_d) : 1.0);
                                                                 })
                                           : std::vector<double>{},
                          more, terms);
      single.set_image(start);
      data = &single;
      const auto prior = make_prior();
      pet::reconstruct(single, recon, prior.get(), hooks);
    } else {
      double step_ms = 0, sum_ms = 0;
      ranks.team->run([&](int rank) {
        const int local = rank - ranks.team->first_local_rank();
        // The ranks' set-up (device context, configure, events) counts to the setup stage and
        // not to the first iteration: timed by the process's first rank after every rank is ready.
        auto t0 = std::chrono::steady_clock::now();
        const auto ready = [&](const char* timing) {
          std::vector<double> none(1, 0.0);
          ranks.team->allreduce_sum(rank, std::span<double>(none));
          const auto now = std::chrono::steady_clock::now();
          if (local == 0) ctx.report.add_timing(timing, std::chrono::duration<double, std::milli>(now - t0).count());
          t0 = last = now;
        };
        const auto make = [&] {
          std::unique_ptr<ListModeProjector> rop;
          configure_on_device(ranks.devices[std::size_t(local)], [&] {
            rop = reg.create(backend);
            rop->configure(g, c.resolution, c.options);
          });
          return rop;
        };
        std::unique_ptr<ListModeProjector> first = make();  // the device's context: the costliest part of a rank's set-up
        ready("configure");
        const EventRange share_of = rank_event_range(events.size(), recon.subsets, rank, ranks.size());
        const std::span<const Event> mine(events.data() + share_of.first, share_of.count);  // a view: no copy
        if (recon.subsets == 1) first->set_events(mine);
        // Each subset's events in a projector of their own, uploaded once.
        EventSubsets share(*first, mine, recon.subsets, g.pixel_count(), {},
                           recon.subsets > 1 ? std::function<std::unique_ptr<ListModeProjector>()>(make) : nullptr);
        SummedSubsets summed(share, *ranks.team, rank);
        summed.set_image(start);
        std::unique_ptr<pet::PriorOperator> prior;  // on the rank's device, as its projectors
        configure_on_device(ranks.devices[std::size_t(local)], [&] { prior = make_prior(); });
        ready("upload");
        if (rank == 0) data = &summed;  // rank 0 reports; every rank holds the same image
        pet::reconstruct(summed, recon, prior.get(), rank == 0 ? hooks : pet::ReconHooks{});
        if (rank == 0) step_ms = summed.local_ms(), sum_ms = summed.sum_ms();
      });
      // Rank 0's iterations split: its own EM steps and the team's image sums (with the waits).
      ctx.report.set_metric("rank0_step_ms", step_ms);
      ctx.report.set_metric("rank0_sum_ms", sum_ms);
    }
  }
  progress.finish();
  auto writing_stage = ctx.report.stage("writing");  // to the end: images, previews, metrics
  const std::vector<double> rho = rho_from_rho_prime(rho_prime, s, c.sensitivity_threshold, outside);
  write_image(ctx.out, g, "rho_prime", rho_prime);
  write_image(ctx.out, g, "rho", rho);

  ctx.report.set_metric("events", static_cast<double>(events.size()));
  ctx.report.set_metric("iterations", c.iterations);
  ctx.report.set("algorithm", std::string(enum_name(pet::kAlgorithmNames, recon.algorithm)));
  ctx.report.set_metric("subsets", recon.subsets);
  ctx.report.set_metric("correlation_rho_phantom", correlation(rho, phantom));
  ctx.report.set_metric("nrmse_rho_phantom", nrmse(rho, phantom));
  std::vector<double> s_phantom(phantom.size());
  for (std::size_t i = 0; i < s.size(); ++i) s_phantom[i] = s[i] * phantom[i];
  ctx.report.set_metric("correlation_rho_prime_s_phantom", correlation(rho_prime, s_phantom));
  ctx.report.set("strip_iterations", per_iteration);
  log_info("strip: correlation(ρ, phantom) = ", correlation(rho, phantom), ", NRMSE = ", nrmse(rho, phantom));
}

int crosscheck(CrosscheckContext& ctx) {
  StripConfig c = StripConfig::from_scene(ctx.scene);
  if (c.crosscheck_events > 0 && c.events_file.empty())
    c.events = std::min<std::uint64_t>(c.events, static_cast<std::uint64_t>(c.crosscheck_events));
  require_host_memory(estimate_memory(c), "strip crosscheck");
  std::vector<Event> events = load_or_simulate(c, ctx.report);
  if (c.crosscheck_events > 0 && events.size() > static_cast<std::size_t>(c.crosscheck_events))
    events.resize(c.crosscheck_events);
  const std::vector<double> flat(c.geometry.pixel_count(), 1.0);
  auto one_iteration = [&](const std::string& name, Granularity granularity) {
    auto op = BackendRegistry<ListModeProjector>::instance().create(name);
    ProjectorOptions o = c.options;
    o.granularity = granularity;
    op->configure(c.geometry, c.resolution, o);
    op->set_events(events);
    op->set_image(flat);
    auto timer = ctx.report.time("iterate." + name + "." + to_string(granularity));
    op->iterate();
    return op->image();
  };
  const std::vector<double> ref = one_iteration("cpu", Granularity::thread);
  CrosscheckTable table("strip", str_cat(c.geometry.n_y, "x", c.geometry.n_z, " pixels, ", events.size(),
                                         " events, one ML-EM iteration"));
  run_backends<ListModeProjector>(table, [&](const std::string& name) {
    for (const Granularity g : {Granularity::thread, Granularity::warp})
      table.run(name, to_string(g), [&] {
        return CrosscheckErrors{{"rel_l2", relative_l2(one_iteration(name, g), ref), kCrosscheckTolerance}};
      });
  });
  return table.finish(ctx.report);
}

const ProblemRegistrar kRegister({"strip",
                                  "J-PET two-strip TOF list-mode ML-EM ([Bialas2015]): analytic kernel, 3σ ellipse",
                                  run, crosscheck, list_backends_of<ListModeProjector>(), /*multi_device=*/true,
                                  [](const Scene& s) { (void)StripConfig::from_scene(s); }});

}  // namespace

}  // namespace tomo::strip
