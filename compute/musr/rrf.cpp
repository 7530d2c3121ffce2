// RRF data preparation (PRunSingleHistoRRF / PRunAsymmetryRRF conventions, quirks included;
// docs/musr.md lists them).
#include "compute/musr/rrf.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "compute/musr/fourier.hpp"

namespace tomo::musr {

double MsrRrf::omega() const {
  const double v = freq.value_or(0.0);
  if (unit == "Mc") return v;
  if (unit == "T") return 2.0 * std::numbers::pi * v * 1e4 * kGammaMuOver2Pi;
  return 2.0 * std::numbers::pi * v;  // MHz
}

double rrf_phase_rad(const MsrRrf& rrf) { return rrf.phase * 2.0 * std::numbers::pi / 180.0; }

double rrf_main_frequency(std::span<const double> n, double dt_us) {
  if (n.size() < 4) return 0.0;
  std::vector<double> t(n.size());
  for (std::size_t i = 0; i < n.size(); ++i) t[i] = static_cast<double>(i) * dt_us;
  const FourierSpectrum s = fourier_transform(t, n, {.unit = FourierUnit::mhz, .apodization = Apodization::strong});
  double best = 0.0, nu = 0.0;
  for (std::size_t i = 1; i < s.x.size(); ++i) {
    const double pw = std::hypot(s.re[i], s.im[i]);
    if (i + 1 < s.x.size() && pw > std::hypot(s.re[i + 1], s.im[i + 1])) continue;
    if (s.x[i] < 10.0) continue;
    if (pw > best) best = pw, nu = s.x[i];
  }
  return nu;
}

RunBins single_histogram_rrf_bins(const MsrFile& msr, const MsrRun& r, const PsiBinFile& f,
                                  const std::vector<prep::AddedRun>& added, ProgramBuilder& b, std::int32_t theory,
                                  RunInfo& info) {
  const double dt = f.bin_width_us;
  const int P = msr.rrf.packing.value_or(1);
  info.packing = P;
  if (r.backgr_fit > 0)
    prep::fail(msr, r, "single-histogram RRF RUN (fittype 1) cannot fit the background: give 'background' or 'backgr.fix'");
  prep::Group g = prep::sum_group(msr, r, f, r.forward, [](std::size_t k) { return k; }, added);
  prep::set_data_range(msr, r, g, 0, dt);
  const int fgb = g.fgb, lgb = g.lgb;
  const std::vector<double>& raw = g.counts;
  // Background per raw bin: Σ[start, end)/(end − start + 1) over the window cut to beam periods
  // in raw bins; its error the bins' standard deviation about it (musrfit's EstimateBkg).
  double bkg = 0.0, bkg_err = 0.0;
  if (!r.backgr_fix.empty()) {
    bkg = r.backgr_fix[0];
  } else {
    const BinRange w = prep::background_window(msr, r, g, 0, dt, 1);
    bkg = single_histogram_background(raw, w);
    double ss = 0.0;
    for (int i = w.start; i < w.end; ++i) ss += (raw[i] - bkg) * (raw[i] - bkg);
    bkg_err = w.end > w.start ? std::sqrt(ss / (w.end - w.start)) : 0.0;
  }
  info.background = bkg;
  const int t0 = static_cast<int>(std::floor(g.t0));
  auto time = [&](int i) { return dt * (i - t0); };  // musrfit: startTime + Δt(i − fgb)
  // M(t) = e^(t/τ)(N − Bkg) with errors e^(t/τ)√(N + σ_bkg²) and weights 1/err².
  std::vector<double> m, merr, w;
  for (int i = fgb; i < lgb; ++i) {
    const double e = std::exp(time(i) / kMuonLifetime);
    m.push_back((raw[i] - bkg) * e);
    merr.push_back(e * std::sqrt(raw[i] + bkg_err * bkg_err));
    w.push_back(merr.back() > 0.0 ? 1.0 / (merr.back() * merr.back()) : 1.0);
  }
  // N0: the plain mean of M over the first bins up to ⌈T·ν/2π⌉·2π/ν (T = 1 µs, ν the main
  // frequency in MHz: musrfit's formula, which treats ν as an angular frequency); its error
  // √Σw²err²/Σw over the same bins.
  // musrfit transforms bins fgb … lgb inclusive (reading past the histogram where lgb is its
  // size, the default data end): here at most to its last bin.
  const int last = std::min(lgb, static_cast<int>(raw.size()) - 1);
  const double nu = rrf_main_frequency(std::span<const double>(raw).subspan(fgb, last - fgb + 1), dt);
  const int end_bin = nu > 0.0 ? static_cast<int>(std::round(std::ceil(1.0 * nu / (2.0 * std::numbers::pi)) *
                                                              (2.0 * std::numbers::pi / nu) / dt))
                               : static_cast<int>(std::round(1.0 / dt));
  if (end_bin < 1 || end_bin > static_cast<int>(m.size()))
    prep::fail(msr, r, "RRF N0 estimate needs " + std::to_string(end_bin) + " bins (about 1 µs) after the data start; the data range has " +
                           std::to_string(m.size()));
  double n0 = 0.0, wn = 0.0, en = 0.0;
  for (int i = 0; i < end_bin; ++i) {
    n0 += m[i];
    wn += w[i];
    en += w[i] * w[i] * merr[i] * merr[i];
  }
  n0 /= end_bin;
  const double err_n0 = std::sqrt(en) / wn;
  if (!(n0 > 0.0)) prep::fail(msr, r, "RRF N0 estimate is not positive (" + std::to_string(n0) + ")");
  info.normalizer = 1.0;
  // A(t) = M/N0 − 1 rotated by 2cos(ω t + φ); error e^(t/τ)/N0·√(N + ((N − Bkg)/N0)²σ_N0²).
  const double omega = msr.rrf.omega(), phi = rrf_phase_rad(msr.rrf);
  std::vector<double> a, aerr;
  for (int i = fgb; i < lgb; ++i) {
    const double e = std::exp(time(i) / kMuonLifetime);
    a.push_back((m[i - fgb] / n0 - 1.0) * 2.0 * std::cos(omega * time(i) + phi));
    const double q = (raw[i] - bkg) / n0 * err_n0;
    aerr.push_back(e / n0 * std::sqrt(raw[i] + q * q));
  }
  // Packs of P: means of A, errors √(2Σerr²)/P (the 2 for the suppressed fast part).
  RunBins bins;
  bins.model = b.finish(theory);
  // Plain variables, not a structured binding: lambdas below capture them (clang before 16 refuses
  // to capture a binding).
  const std::pair<double, double> window = prep::fit_window(r, g, dt);
  const double t_start = window.first, t_end = window.second;
  double sv = 0.0, se = 0.0;
  std::size_t k = 0;
  auto emit = [&](double v, double e) {
    const double tk = dt * (fgb - t0 + (P - 1) / 2.0) + static_cast<double>(k++) * P * dt;
    if (tk < t_start || tk > t_end) return;
    bins.t.push_back(tk);
    bins.y.push_back(v);
    bins.sigma.push_back(e);
  };
  for (std::size_t j = 0; j < a.size(); ++j) {
    if (P == 1) {
      emit(a[j], std::sqrt(2.0) * aerr[j]);
      continue;
    }
    if (j % P == 0 && j != 0) {
      emit(sv / P, std::sqrt(2.0 * se) / P);
      sv = se = 0.0;
    }
    sv += a[j];
    se += aerr[j] * aerr[j];
  }
  // musrfit's loop runs to lgb inclusive: a pack that ends exactly at lgb is emitted too.
  if (P > 1 && a.size() % P == 0) emit(sv / P, std::sqrt(2.0 * se) / P);
  return bins;
}

RunBins asymmetry_rrf_bins(const MsrFile& msr, const MsrRun& r, const PsiBinFile& f, const std::vector<prep::AddedRun>& added,
                           ProgramBuilder& b, std::int32_t theory, RunInfo& info) {
  const double dt = f.bin_width_us;
  const int P = msr.rrf.packing.value_or(1);
  info.packing = P;
  if (P < 2)
    prep::fail(msr, r, "asymmetry RRF (fittype 3) needs rrf_packing of at least 2 (musrfit's RRF packing shifts the data by one bin at 1)");
  prep::Group gf = prep::sum_group(msr, r, f, r.forward, [](std::size_t k) { return 2 * k; }, added);
  prep::Group gb = prep::sum_group(msr, r, f, r.backward, [](std::size_t k) { return 2 * k + 1; }, added);
  // Background as for asymmetry, the window cut to beam periods in raw bins.
  BackgroundEstimate ef, eb;
  const bool estimated = r.backgr_fix.empty();
  if (r.backgr_fix.size() == 2) {
    ef.mean = r.backgr_fix[0];
    eb.mean = r.backgr_fix[1];
  } else if (!estimated) {
    prep::fail(msr, r, "asymmetry RUN needs 'backgr.fix' with 2 values (forward, backward)");
  } else if (!r.background.empty() && r.background.size() != 4) {
    prep::fail(msr, r, "asymmetry RUN needs 'background' with 4 bins (forward start end, backward start end)");
  } else {
    ef = asymmetry_background(gf.counts, prep::background_window(msr, r, gf, 0, dt, 1));
    eb = asymmetry_background(gb.counts, prep::background_window(msr, r, gb, 2, dt, 1));
  }
  info.backgrounds = {ef.mean, eb.mean};
  prep::set_data_range(msr, r, gf, 0, dt);
  prep::set_data_range(msr, r, gb, 2, dt);
  prep::align_at_t0(msr, r, gf, gb);
  // musrfit's common range: offsets from ⌊t0⌋, the larger start; the end offset the larger
  // one plus the start offset (as musrfit computes it), cut here to the histograms (musrfit
  // reads past them).
  const int t0f = static_cast<int>(gf.t0), t0b = static_cast<int>(gb.t0);
  const int fgb_off = std::max(gf.fgb - t0f, gb.fgb - t0b);
  const int lgb_off = std::max(gf.lgb - t0f, gb.lgb - t0b) + fgb_off;
  const int fgb = t0f + fgb_off, dt0 = t0f - t0b;
  const int lgb = std::min({fgb + lgb_off, static_cast<int>(gf.counts.size()), static_cast<int>(gb.counts.size()) + dt0});
  if (fgb < 0 || fgb - dt0 < 0 || lgb - fgb < 2 * P) prep::fail(msr, r, "RRF data range leaves too few bins");
  auto err = [&](double c, const BackgroundEstimate& e) {
    return estimated ? (c > 0.0 ? std::sqrt(c + e.variance) : 1.0) : (c != 0.0 ? std::sqrt(c) : 1.0);
  };
  const double omega = msr.rrf.omega(), phi = rrf_phase_rad(msr.rrf);
  const double start = dt * fgb_off;
  // Packs: musrfit emits before adding value i when (i + 1) % P == 0, so the first pack holds
  // P − 1 values (still divided by P), the later ones P.
  RunBins bins;
  auto one = b.constant(1.0);
  prep::RunResolver res(msr, r, b);
  auto alpha = r.alpha > 0 ? res.param(r.alpha) : r.alpha < 0 ? res.fun(-r.alpha) : b.constant(1.0);
  auto beta = r.beta > 0 ? res.param(r.beta) : r.beta < 0 ? res.fun(-r.beta) : b.constant(1.0);
  auto ab = b.mul(alpha, beta);
  auto num = b.sub(b.mul(theory, b.add(ab, one)), b.sub(alpha, one));
  auto den = b.sub(b.add(alpha, one), b.mul(theory, b.sub(ab, one)));
  bins.model = b.finish(b.div(num, den));
  // Plain variables, not a structured binding: lambdas below capture them (clang before 16 refuses
  // to capture a binding).
  const std::pair<double, double> window = prep::fit_window(r, gf, dt);
  const double t_start = window.first, t_end = window.second;
  double sv = 0.0, se = 0.0;
  std::size_t k = 0;
  for (int i = fgb; i < lgb; ++i) {
    const std::size_t j = static_cast<std::size_t>(i - fgb);
    if ((j + 1) % P == 0) {
      const double tk = start + dt * (P - 1) / 2.0 + static_cast<double>(k++) * P * dt;
      if (tk >= t_start && tk <= t_end) {
        bins.t.push_back(tk);
        bins.y.push_back(sv / P);
        bins.sigma.push_back(std::sqrt(2.0 * se) / P);
      }
      sv = se = 0.0;
    }
    const double F = gf.counts[i] - ef.mean, B = gb.counts[i - dt0] - eb.mean;
    const double s = F + B;
    const double av = s != 0.0 ? (F - B) / s : 0.0;
    const double eF = err(gf.counts[i], ef), eB = err(gb.counts[i - dt0], eb);
    const double ae = av != 0.0 && s > 0.0 ? 2.0 / (s * s) * std::sqrt(B * B * eF * eF + F * F * eB * eB) : 1.0;
    sv += av * 2.0 * std::cos(omega * (start + dt * static_cast<double>(j)) + phi);
    se += ae * ae;
  }
  return bins;
}

}  // namespace tomo::musr
