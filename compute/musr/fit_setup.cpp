// Data preparation as musrfit's PRunSingleHisto/PRunAsymmetry do it (notes: musrfit-facts.md,
// "Single-histogram fit", "Asymmetry fit"); departures are listed in docs/musr.md.
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/run_groups.hpp"
#include "compute/musr/auto_t0.hpp"
#include "compute/musr/bnmr.hpp"
#include "compute/musr/mu_minus.hpp"
#include "compute/musr/quoted_text.hpp"
#include "compute/musr/raw_bins.hpp"
#include "compute/musr/rrf.hpp"
#include "compute/musr/run_file.hpp"
#include "compute/musr/user_fcn.hpp"
#include "compute/musr/xy_fit.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::musr {
namespace prep {

[[noreturn]] void fail(const MsrFile& m, const MsrRun& r, const std::string& what) {
  throw InputError(m.path.string() + ":" + std::to_string(r.line) + ": RUN " + quoted_excerpt(r.file) + ": " + tidy_message(what));
}

// Sums `hists`; histogram k's t0 is entry t0_index(k) of the t0 list (musrfit: single
// histograms k, asymmetry forward 2k and backward 2k + 1), shifted by ⌊t0_k⌋ − ⌊t0_0⌋ bins.
// Each ADDRUN's histogram k is first added to the RUN's, shifted by ⌊addt0_k⌋ − ⌊t0_k⌋ bins.
Group sum_group(const MsrFile& m, const MsrRun& r, const PsiBinFile& f, const std::vector<int>& hists,
                const std::function<std::size_t(std::size_t)>& t0_index, const std::vector<AddedRun>& added) {
  const int nh = static_cast<int>(f.histograms.size());
  const int bins = f.bins();
  Group g;
  g.counts.assign(static_cast<std::size_t>(bins), 0.0);
  std::vector<double> t0s;
  for (std::size_t k = 0; k < hists.size(); ++k) {
    const int h = hists[k];
    if (h > nh) fail(m, r, "histogram " + std::to_string(h) + " does not exist (the file has " + std::to_string(nh) + ")");
    const auto& raw = f.histograms[h - 1];
    // An empty histogram fits to any parameters: a wrong histogram number or a dead detector.
    if (std::all_of(raw.begin(), raw.end(), [](std::int32_t v) { return v == 0; }))
      fail(m, r, "histogram " + std::to_string(h) + " has no counts (every bin is 0)");
    const std::vector<double> counts(raw.begin(), raw.end());
    const double header = static_cast<std::size_t>(h - 1) < f.t0.size() ? f.t0[h - 1] : 0.0;
    t0s.push_back(resolve_t0(r.settings.t0, t0_index(k), header, counts));
    if (!(t0s.back() >= 0.0 && t0s.back() < bins)) fail(m, r, "t0 " + std::to_string(t0s.back()) + " is outside the histogram");
    // A t0 well before the prompt peak (musrfit's tutorial ships `t0 1` for musrt0 to set): the
    // peak's rising edge (first bin at half its height) lies more than the data offset after t0,
    // and the bins between hold the quiet level before a peak, not the decay after t0 (a low-
    // energy beam's histogram has no prompt peak: its maximum is noise somewhere on the decay).
    // Continuous beams only: at pulsed sources (ISIS, RIKEN-RAL) there is no prompt peak, nor in
    // β-NMR, whose histograms follow the beam pulse.
    if (const int edge = rising_edge(counts); !pulsed_source(r.institute) && !beta_nmr_run(r) &&
                                              edge - t0s.back() > t0_warning_bins(f.bin_width_us) &&
                                              t0_before_prompt_peak(counts, t0s.back(), edge))
      log_warn("musr: ", m.path.string(), ":", r.line, ": RUN ", quoted_excerpt(r.file), ": histogram ", h, ": t0 ", t0s.back(),
               " lies ", edge - t0s.back(), " bins before the prompt peak's rising edge at bin ", edge, " (peak at bin ",
               bin_of_maximum(counts), "); `tomoraster fit --auto-t0` puts t0 at the peak (as musrt0 -g)");
  }
  g.t0 = t0s[0];
  for (std::size_t k = 0; k < hists.size(); ++k) {
    const auto& raw = f.histograms[hists[k] - 1];
    std::vector<double> h(raw.begin(), raw.end());
    for (std::size_t a = 0; a < added.size(); ++a) {
      const PsiBinFile& fa = *added[a].file;
      const int ha = hists[k];
      if (ha > static_cast<int>(fa.histograms.size()))
        fail(m, r, "ADDRUN " + quoted_excerpt(r.addruns[a].file) + " has no histogram " + std::to_string(ha));
      const auto& ra = fa.histograms[ha - 1];
      const std::vector<double> ca(ra.begin(), ra.end());
      const double header = static_cast<std::size_t>(ha - 1) < fa.t0.size() ? fa.t0[ha - 1] : 0.0;
      const double ta = resolve_t0(added[a].t0s, t0_index(k), header, ca);
      const int shift = static_cast<int>(ta) - static_cast<int>(t0s[k]);
      for (int i = 0; i < bins; ++i)
        if (const int j = i + shift; j >= 0 && j < static_cast<int>(ca.size())) h[i] += ca[j];
    }
    const int shift = static_cast<int>(t0s[k]) - static_cast<int>(t0s[0]);
    for (int i = 0; i < bins; ++i) {
      const int j = i + shift;
      if (j >= 0 && j < bins) g.counts[i] += h[j];
    }
  }
  return g;
}

// The group's data range (msr `data` entries at `offset`, else musrfit's default).
void set_data_range(const MsrFile& m, const MsrRun& r, Group& g, std::size_t offset, double dt) {
  const auto& d = r.settings.data;
  const std::optional<int> start = d.size() > offset ? std::optional<int>(d[offset]) : std::nullopt;
  const std::optional<int> end = d.size() > offset + 1 ? std::optional<int>(d[offset + 1]) : std::nullopt;
  const int bins = static_cast<int>(g.counts.size());
  const auto range = resolve_data_range(start, end, g.t0, dt, bins);
  if (!range || range->end - range->start < 2)
    fail(m, r, "data range " + std::to_string(start.value_or(-1)) + ".." + std::to_string(end.value_or(-1)) + " is not inside 0.." +
                   std::to_string(bins));
  g.fgb = range->start;
  g.lgb = range->end;
}

// The estimated background's window: the msr's `background` pair at `offset`, else musrfit's
// [0.1·t0, 0.6·t0] (with a warning), cut to whole beam periods in packed bins.
BinRange background_window(const MsrFile& m, const MsrRun& r, const Group& g, std::size_t offset, double dt, int p) {
  BinRange w;
  if (r.background.size() >= offset + 2) {
    w = {r.background[offset], r.background[offset + 1]};
  } else {
    w = default_background_window(g.t0);
    log_warn("musr: ", m.path.string(), ":", r.line, ": RUN ", quoted_excerpt(r.file), " gives no background: estimated from bins ",
             w.start, "..", w.end, " (0.1·t0 to 0.6·t0, as musrfit)");
  }
  const BinRange t = trim_background_window(w, dt, p, beam_period_us(r.institute));
  if (t.start < 0 || t.end >= static_cast<int>(g.counts.size()))
    fail(m, r, "background range " + std::to_string(w.start) + " " + std::to_string(w.end) + " is not inside the histogram");
  return t;
}

// musrfit's packing: a pack is emitted when (i − fgb) % p == 0 and i ≠ fgb (trailing partial
// pack and, where the range divides evenly, the last full pack are dropped, as musrfit does);
// p = 1 keeps every bin of [fgb, lgb).
std::vector<double> pack(const std::vector<double>& c, int fgb, int lgb, int p) {
  if (p == 1) return {c.begin() + fgb, c.begin() + lgb};  // unpacked: every bin (musrfit)
  std::vector<double> out;
  double v = 0.0;
  for (int i = fgb; i < lgb; ++i) {
    if ((i - fgb) % p == 0 && i != fgb) {
      out.push_back(v);
      v = 0.0;
    }
    v += c[i];
  }
  return out;
}

std::pair<double, double> fit_window(const MsrRun& r, const Group& g, double dt) {
  if (!r.settings.fit) return {(g.fgb - g.t0) * dt, (g.lgb - g.t0) * dt};
  const auto& f = *r.settings.fit;
  if (f.in_bins) return {(g.fgb + f.start_offset - g.t0) * dt, (g.lgb - f.end_offset - g.t0) * dt};
  return {f.start, f.end};
}

}  // namespace prep
using namespace prep;

std::int32_t build_theory(const MsrFile& msr, const MsrRun& run, ProgramBuilder& b) {
  RunResolver res(msr, run, b);
  const auto t = b.time();
  std::int32_t sum = b.constant(0.0);
  for (const auto& term : msr.theory) {
    std::int32_t prod = b.constant(1.0);
    for (const auto& f : term) {
      std::vector<std::int32_t> args;
      for (const auto& a : f.args) args.push_back(res.arg(a));
      prod = b.mul(prod, f.user ? build_user_function(b, *f.user, args, t) : build_theory_function(b, f.fn, args, t));
    }
    sum = b.add(sum, prod);
  }
  return sum;
}

PsiBinFile load_run_data(const MsrFile& msr, const MsrRun& run) {
  return read_run_file(find_run_file(msr, run), run.format);
}

namespace {

// σ of an empty packed bin in the scaled units (counts / n, n = packing·Δt[ns] or 1) where
// musrfit's χ² weighs it: PRunSingleHisto gives a bin of value y = counts/n the error √y, an
// empty one 1/n, and multiplies the sum by n, so an empty bin adds n·θ_counts², as if its count
// had variance 1/n instead of 1. Here χ² = Σ((y − θ)/σ)² with σ = √counts/n, so the same weight
// needs σ² = 1/n³. (test-histo-NeXus: one empty bin at 19.9 µs, n = 16, adds 216 to χ².)
double empty_bin_sigma(double n) { return 1.0 / (n * std::sqrt(n)); }

// Single histogram (fittype 0): N(t) = N0 e^(−t/τ)[1 + A(t)] + Bkg on packed, scaled counts.
RunBins single_histogram_bins(const MsrFile& msr, const MsrRun& r, const PsiBinFile& f, const std::vector<AddedRun>& added,
                              bool scale, int p, ProgramBuilder& b, std::int32_t theory, RunInfo& info) {
  const double dt = f.bin_width_us;
  const auto t = b.time();
  RunBins bins;
    Group g = sum_group(msr, r, f, r.forward, [](std::size_t k) { return k; }, added);
    set_data_range(msr, r, g, 0, dt);
    info.normalizer = scale ? p * dt * 1e3 : 1.0;
    RunResolver res(msr, r, b);
    const auto n0 = r.norm.is_fun ? res.fun(r.norm.n) : res.param(r.norm.n);
    if (!r.norm.is_fun) info.norm_param = r.norm.n - 1;
    std::int32_t bkg;
    if (r.backgr_fit > 0) {
      bkg = res.param(r.backgr_fit);
      info.bkg_param = r.backgr_fit - 1;
    } else if (!r.backgr_fix.empty()) {
      bkg = b.constant(info.background = r.backgr_fix[0]);
    } else {
      // Counts per raw bin, in the units of the packed, scaled data (musrfit's EstimateBkg).
      const double mean = single_histogram_background(g.counts, background_window(msr, r, g, 0, dt, p));
      bkg = b.constant(info.background = mean * p / info.normalizer);
    }
    std::int32_t tau = b.constant(kMuonLifetime);
    if (r.lifetime > 0) {
      tau = res.param(r.lifetime);
      info.lifetime_param = r.lifetime - 1;
    }
    auto decay = b.unary(OpCode::exp, b.unary(OpCode::neg, b.div(t, tau)));
    auto model = b.add(b.mul(b.mul(n0, decay), b.add(b.constant(1.0), theory)), bkg);
    bins.model = b.finish(model);
    bins.scale = info.normalizer;
    const auto packed = pack(g.counts, g.fgb, g.lgb, p);
    const auto [t_start, t_end] = fit_window(r, g, dt);
    for (std::size_t k = 0; k < packed.size(); ++k) {
      // musrfit's single-histogram time axis starts from ⌊t0⌋ (the fit range from t0 itself).
      const double tk = dt * ((g.fgb - 0.5) + p / 2.0 - std::floor(g.t0)) + static_cast<double>(k) * p * dt;
      if (tk < t_start || tk > t_end) continue;
      bins.t.push_back(tk);
      bins.y.push_back(packed[k] / info.normalizer);
      bins.sigma.push_back(packed[k] > 0.0 ? std::sqrt(packed[k]) / info.normalizer : empty_bin_sigma(info.normalizer));
    }
  return bins;
}

// Asymmetry (fittype 2): A = (F−B)/(F+B) against A_th(α, β, f), F and B the background-
// subtracted packed means; each raw bin's variance is its count plus the background's Σ/N²
// (1 for an empty bin), as PRunAsymmetry.
RunBins asymmetry_bins(const MsrFile& msr, const MsrRun& r, const PsiBinFile& f, const std::vector<AddedRun>& added, int p,
                       ProgramBuilder& b, std::int32_t theory, RunInfo& info) {
  const double dt = f.bin_width_us;
  RunBins bins;
  Group gf = sum_group(msr, r, f, r.forward, [](std::size_t k) { return 2 * k; }, added);
  Group gb = sum_group(msr, r, f, r.backward, [](std::size_t k) { return 2 * k + 1; }, added);
  BackgroundEstimate ef, eb;
  if (r.backgr_fix.size() == 2) {
    ef.mean = r.backgr_fix[0];
    eb.mean = r.backgr_fix[1];
  } else if (!r.backgr_fix.empty()) {
    fail(msr, r, "asymmetry RUN needs 'backgr.fix' with 2 values (forward, backward)");
  } else if (!r.background.empty() && r.background.size() != 4) {
    fail(msr, r, "asymmetry RUN needs 'background' with 4 bins (forward start end, backward start end)");
  } else {
    ef = asymmetry_background(gf.counts, background_window(msr, r, gf, 0, dt, p));
    eb = asymmetry_background(gb.counts, background_window(msr, r, gb, 2, dt, p));
  }
  const bool estimated = r.backgr_fix.empty();
  info.backgrounds = {ef.mean, eb.mean};
  RunResolver res(msr, r, b);
  auto alpha = r.alpha > 0 ? res.param(r.alpha) : r.alpha < 0 ? res.fun(-r.alpha) : b.constant(1.0);
  auto beta = r.beta > 0 ? res.param(r.beta) : r.beta < 0 ? res.fun(-r.beta) : b.constant(1.0);
  // A_th = (f(αβ+1) − (α−1)) / ((α+1) − f(αβ−1))
  auto one = b.constant(1.0);
  auto ab = b.mul(alpha, beta);
  auto num = b.sub(b.mul(theory, b.add(ab, one)), b.sub(alpha, one));
  auto den = b.sub(b.add(alpha, one), b.mul(theory, b.sub(ab, one)));
  bins.model = b.finish(b.div(num, den));
  // Data ranges, then musrfit's alignment: the histogram whose start lies further from its t0
  // sets the other's start and end (⌊t0 + start − t0'⌋).
  set_data_range(msr, r, gf, 0, dt);
  set_data_range(msr, r, gb, 2, dt);
  align_at_t0(msr, r, gf, gb);
  // Packed means and errors (musrfit: a pack of mean 0 gets error 1; unpacked bins keep theirs),
  // forward first, then backward with the forward's unemitted last pack carried into its first.
  auto corrected = [&](const Group& g, const BackgroundEstimate& e) {
    std::pair<std::vector<double>, std::vector<double>> out;  // values, variances
    for (const double c : g.counts) {
      out.first.push_back(c - e.mean);
      out.second.push_back(estimated ? (c > 0.0 ? c + e.variance : 1.0) : (c != 0.0 ? c : 1.0));
    }
    return out;
  };
  const auto [vf, varf] = corrected(gf, ef);
  const auto [vb, varb] = corrected(gb, eb);
  PackCarry carry;
  const auto pf = packed_means(vf, varf, gf.fgb, gf.lgb, p, carry);
  const auto pb = packed_means(vb, varb, gb.fgb, gb.lgb, p, carry);
  const auto [t_start, t_end] = fit_window(r, gf, dt);
  for (std::size_t k = 0; k < std::min(pf.size(), pb.size()); ++k) {
    const double tk = dt * ((gf.fgb - 0.5) + p / 2.0 - gf.t0) + static_cast<double>(k) * p * dt;
    if (tk < t_start || tk > t_end) continue;
    const auto [F, eF] = pf[k];
    const auto [B, eB] = pb[k];
    const double sum = F + B;
    bins.t.push_back(tk);
    bins.y.push_back(sum != 0.0 ? (F - B) / sum : 0.0);
    bins.sigma.push_back(sum != 0.0 ? 2.0 / (sum * sum) * std::sqrt(B * B * eF * eF + F * F * eB * eB) : 1.0);
  }
  return bins;
}

}  // namespace

FitSetup prepare_fit(const MsrFile& msr, const std::function<PsiBinFile(const MsrRun&)>& load) {
  FitSetup out;
  const int np = static_cast<int>(msr.params.size());
  out.data.num_params = np;
  const bool scale = msr.scale_n0_bkg();
  // Asymmetry-like runs (2, and musrfit's RRF and β-NMR and x-y data, which have no likelihood) fit χ².
  const bool any_asym = std::any_of(msr.runs.begin(), msr.runs.end(), [](const MsrRun& r) { return r.fittype() != 0 && r.fittype() != 4; });
  out.data.statistic = msr.max_likelihood() && !any_asym ? Statistic::max_likelihood : Statistic::chi2;
  for (const auto& r : msr.runs) {
    if (r.fittype() == 8) {  // non-μSR x-y data: compute/musr/xy_fit.hpp
      RunInfo info;
      out.data.runs.push_back(xy_run_bins(msr, r, load_xy_data(msr, r), info));
      out.runs.push_back(info);
      continue;
    }
    const PsiBinFile f = load(r);
    const int p = r.settings.packing.value_or(1);
    RunInfo info;
    info.name = r.file;
    info.fittype = r.fittype();
    info.dt_us = f.bin_width_us;
    info.packing = p;
    info.lifetime_correction = r.lifetime_correction;
    ProgramBuilder b(np);
    register_fixed_parameters(msr, b);
    const auto theory = build_theory(msr, r, b);
    // ADDRUN: each added run read as the RUN's own data file is.
    std::vector<PsiBinFile> added_files;
    for (const auto& a : r.addruns) {
      MsrRun ar = r;
      ar.file = a.file;
      ar.beamline = a.beamline;
      ar.institute = a.institute;
      ar.format = a.format;
      ar.line = a.line;
      added_files.push_back(load(ar));
    }
    std::vector<AddedRun> added;
    for (std::size_t i = 0; i < added_files.size(); ++i)
      added.push_back({&added_files[i], i < r.addt0.size() ? r.addt0[i] : std::vector<double>{}});
    RunBins bins;
    switch (info.fittype) {
      case 0: bins = single_histogram_bins(msr, r, f, added, scale, p, b, theory, info); break;
      case 1: bins = single_histogram_rrf_bins(msr, r, f, added, b, theory, info); break;
      case 2: bins = asymmetry_bins(msr, r, f, added, p, b, theory, info); break;
      case 3: bins = asymmetry_rrf_bins(msr, r, f, added, b, theory, info); break;
      case 4: bins = mu_minus_bins(msr, r, f, added, p, b, theory, info); break;
      case 5: bins = beta_nmr_bins(msr, r, f, added, p, b, theory, info); break;
      default: fail(msr, r, "fittype " + std::to_string(info.fittype) + " is not supported");
    }
    if (bins.t.size() < 2) fail(msr, r, "fit range leaves " + std::to_string(bins.t.size()) + " bins");
    out.data.runs.push_back(std::move(bins));
    out.runs.push_back(info);
  }
  check_user_functions_finite(msr, out.data.runs);
  out.used.assign(static_cast<std::size_t>(np), false);
  for (const auto& rb : out.data.runs)
    for (int i : rb.model.params_used()) out.used[i] = true;
  return out;
}

void register_fixed_parameters(const MsrFile& msr, ProgramBuilder& b) {
  for (const auto& c : msr.commands) {
    std::string k = c.substr(0, c.find_first_of(" \t"));
    std::transform(k.begin(), k.end(), k.begin(), [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
    if (k == "RELEASE" || k == "RESTORE") return;
  }
  for (std::size_t i = 0; i < msr.params.size(); ++i)
    if (msr.params[i].fixed()) b.set_fixed(static_cast<int>(i), msr.params[i].value);
}

}  // namespace tomo::musr
