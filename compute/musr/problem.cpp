// The `musr` problem ([Locans2017] §4): fit an msr file (or simulated eq. (5) data written as
// msr + PSI-BIN) on the chosen backend; musrfit-style printout, fitted msr, plots, report.
// `crosscheck` compares χ² and gradient of every available backend with cpu.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "compute/core/crosscheck.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/progress.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/atomic_file.hpp"
#include "compute/io/output_dir.hpp"
#include "compute/musr/auto_t0.hpp"
#include "compute/musr/config.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/fourier.hpp"
#include "compute/musr/memory.hpp"
#include "compute/musr/minimizer.hpp"
#include "compute/musr/plot.hpp"
#include "compute/musr/plot_block.hpp"
#include "compute/musr/printout.hpp"
#include "compute/musr/simulator.hpp"

namespace tomo::musr {
namespace {

// The msr to fit: the scene's file, or simulated eq. (5) data written into the output folder.
MsrFile load_or_simulate(RunContext& ctx, const MusrConfig& cfg) {
  if (!cfg.simulate()) return read_msr(cfg.msr);
  const Eq5Config& c = cfg.eq5;
  auto timer = ctx.report.time("simulate");
  write_psi_bin(ctx.out.file("musr_eq5.bin"), simulate_eq5(c));
  const auto msr_path = ctx.out.file("musr_eq5.msr");
  write_text_atomic(msr_path, eq5_msr(c, "musr_eq5", cfg.max_likelihood));
  log_info("musr: simulated ", c.detectors, " × ", c.bins, " bins of eq. (5) (seed ", c.seed, ") into musr_eq5.{msr,bin}");
  return read_msr(msr_path);
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

// The FOURIER block's transform of each run's asymmetry at the fitted parameters:
// fourier_run<N>.csv (every quantity) and, with plots, fourier_run<N>.png (the `plot` one).
void write_fourier(RunContext& ctx, const MsrFile& msr, const FitSetup& setup, const FitResult& r, bool plots) {
  std::vector<double> p;
  for (const auto& s : r.params) p.push_back(s.value);
  const auto settings = read_fourier_block(msr, p);
  if (!settings) return;
  const auto plot_runs = first_plot_runs(msr);
  for (std::size_t i = 0; i < setup.runs.size(); ++i) {
    const auto& bins = setup.data.runs[i];
    FourierSettings run_settings = *settings;
    run_settings.phase_deg = run_phase(*settings, plot_runs, i);
    const auto f = fourier_transform(bins.t, asymmetry_view(bins, setup.runs[i], p), run_settings);
    const std::string stem = "fourier_run" + std::to_string(i + 1);
    write_text_atomic(ctx.out.file(stem + ".csv"), fourier_csv(f, run_settings));
    if (plots) write_fourier_plot(ctx.out.file(stem + ".png"), f, run_settings, setup.runs[i].name);
  }
}

void run(RunContext& ctx) {
  auto& reg = BackendRegistry<Chi2Evaluator>::instance();
  if (ctx.backend != "auto") (void)reg.resolve(ctx.backend);  // a wrong name fails before any work
  const MusrConfig cfg = MusrConfig::from_scene(ctx.scene);
  require_host_memory(estimate_memory(cfg), "musr");
  MsrFile msr = load_or_simulate(ctx, cfg);
  if (cfg.auto_t0)
    for (const auto& line : apply_auto_t0(msr, [&](const MsrRun& r) { return load_run_data(msr, r); }, cfg.auto_t0_offset))
      log_info("musr: auto t0: ", line);
  {  // a bad FOURIER or PLOT block is refused before the fit
    std::vector<double> start;
    for (const auto& q : msr.params) start.push_back(q.value);
    (void)read_fourier_block(msr, start);
    (void)read_plot_views(msr, msr.runs.size());
  }
  FitSetup setup;
  {
    auto timer = ctx.report.time("prepare");
    setup = prepare_fit(msr, [&](const MsrRun& r) { return load_run_data(msr, r); });
  }
  // The cpu's cost, for "auto" falling back to it: theory evaluations at every bin, over about
  // 7·(p+1) χ² evaluations of a MIGRAD+HESSE fit of p parameters (musr_default.toml: 452 for 66),
  // about 3e6 bins per core-second.
  const double p = setup.data.num_params;
  const std::string backend =
      reg.resolve(ctx.backend, {.units = double(setup.data.bins()) * 7 * (p + 1), .cpu_units_per_core_s = 3e6});
  auto ev = reg.create(backend);
  {
    auto timer = ctx.report.time("configure");
    ev->configure(cfg.options);
  }
  {
    auto timer = ctx.report.time("upload");
    ev->upload(setup.data);
  }
  ctx.report.set("backend", backend);
  ctx.report.add_device(ev->describe());
  FitResult r;
  const auto t0 = std::chrono::steady_clock::now();
  {
    auto timer = ctx.report.time("fit");
    Progress progress("musr fit", static_cast<long>(msr.commands.size()) + 2);
    r = run_fit(*ev, msr, setup.used, setup.data.statistic, [&](const std::string& c) { progress.step(1, c); });
    progress.finish();
  }
  const double fit_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto writing_stage = ctx.report.stage("writing");  // to the end: printout, fitted msr, plots
  const MsrStatistic stat = statistic_of(r, setup, utc_now());
  std::fputs(format_printout(msr, r, stat, ev->describe(), fit_s).c_str(), stdout);
  const std::string stem = msr.path.stem().string().empty() ? "fit" : msr.path.stem().string();
  write_text_atomic(ctx.out.file(stem + "_fit.msr"), format_msr(msr, fitted_parameters(msr, r), stat));
  if (cfg.plots) {
    std::vector<double> p;
    for (const auto& s : r.params) p.push_back(s.value);
    const auto views = read_plot_views(msr, setup.runs.size());
    for (std::size_t i = 0; i < setup.runs.size(); ++i)
      write_run_plot(ctx.out.file("run" + std::to_string(i + 1) + ".png"), setup.data.runs[i], setup.runs[i], p, views[i]);
  }
  write_fourier(ctx, msr, setup, r, cfg.plots);
  ctx.report.set("fit", fit_json(r, stat, setup));
  ctx.report.set_metric(stat.max_likelihood ? "maxLH" : "chisq", stat.value);
  ctx.report.set_metric("ndf", stat.ndf);
  ctx.report.set_metric("evaluations", r.evaluations);
  ctx.report.set_metric("fit_seconds", fit_s);
  const char* stat_name = stat.max_likelihood ? "maxLH" : "chi2";
  if (!std::isfinite(r.fmin))
    log_warn("musr: the fit failed: ", stat_name, " is ", r.fmin, " (a THEORY or FUNCTIONS value is not finite); the fitted msr keeps the input steps");
  else if (!r.hesse_ok)
    log_warn("musr: the fit failed: HESSE found no positive-definite matrix (no errors); the fitted msr keeps the input steps");
  else if (!r.converged)
    log_warn("musr: the fit did not converge (EDM ", r.edm, " above ", 2e-4 * r.up, ")");
}

int crosscheck(CrosscheckContext& ctx) {
  // The scene's msr or a small simulation held in memory.
  // Both precisions are compared and no plots are written: single_precision and plots are read
  // with the rest of the scene and not used here.
  const MusrConfig cfg = MusrConfig::from_scene(ctx.scene);
  require_host_memory(estimate_memory(cfg), "musr crosscheck");
  MsrFile msr;
  std::function<PsiBinFile(const MsrRun&)> load;
  PsiBinFile sim;
  if (!cfg.simulate()) {
    msr = read_msr(cfg.msr);
    load = [&](const MsrRun& r) { return load_run_data(msr, r); };
  } else {
    sim = simulate_eq5(cfg.eq5);
    msr = parse_msr(eq5_msr(cfg.eq5, "musr_eq5", cfg.max_likelihood), "musr_eq5.msr");
    load = [&](const MsrRun&) { return sim; };
  }
  const FitSetup setup = prepare_fit(msr, load);
  std::vector<double> p;
  for (const auto& q : msr.params) p.push_back(q.value);
  auto& reg = BackendRegistry<Chi2Evaluator>::instance();
  auto ref = reg.create("cpu");
  ref->configure({cfg.options.threads, false});
  ref->upload(setup.data);
  std::vector<double> gref(p.size());
  const double fref = ref->evaluate_with_gradient(p, gref);
  CrosscheckTable table("musr", std::to_string(setup.data.runs.size()) + " runs, " + std::to_string(setup.data.bins()) +
                                    " bins, " + std::to_string(p.size()) + " parameters");
  run_backends<Chi2Evaluator>(table, [&](const std::string& name) {
    for (bool single : {false, true}) {
      table.run(name, single ? "float" : "double", [&] {
        auto ev = reg.create(name);
        ev->configure({0, single});
        ev->upload(setup.data);
        std::vector<double> g(p.size());
        const double f = ev->evaluate_with_gradient(p, g);
        double gerr = 0.0, gnorm = 0.0;
        for (std::size_t i = 0; i < g.size(); ++i) {
          gerr += (g[i] - gref[i]) * (g[i] - gref[i]);
          gnorm += gref[i] * gref[i];
        }
        const double tol = single ? 1e-5 : 1e-9;
        return CrosscheckErrors{{"chi2_rel", std::fabs(f - fref) / std::fabs(fref), tol},
                                {"grad_rel_l2", std::sqrt(gerr / std::max(gnorm, 1e-300)), single ? 1e-3 : 1e-7}};
      });
    }
  });
  return table.finish(ctx.report);
}

const ProblemRegistrar kRegister({"musr", "μSR histogram fitting as musrfit (msr + PSI-BIN; χ²/max-likelihood, MIGRAD/HESSE/MINOS)",
                                  run, crosscheck, list_backends_of<Chi2Evaluator>(), /*multi_device=*/false,
                                  [](const Scene& s) { (void)MusrConfig::from_scene(s); }});

}  // namespace
}  // namespace tomo::musr
