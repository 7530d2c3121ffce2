// Simulated data for the fit-type tests: Poisson counts drawn from analytic signals with fixed
// seeds (std::mt19937_64), the msr text that fits them, and a fit helper. Shared by the cpu
// test and the GPU test.
#pragma once
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "compute/core/registry.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/minimizer.hpp"

namespace tomo::musr::test {

inline constexpr double kGamma = 0.01355388094;  // γ_μ/2π, MHz/G

inline PsiBinFile empty_file(double dt_us, int histograms, int bins) {
  PsiBinFile f;
  f.bin_width_us = dt_us;
  f.histograms.assign(static_cast<std::size_t>(histograms), std::vector<std::int32_t>(static_cast<std::size_t>(bins), 0));
  return f;
}

inline std::int32_t draw(std::mt19937_64& rng, double mean) {
  return static_cast<std::int32_t>(std::poisson_distribution<long long>(std::max(mean, 0.0))(rng));
}

// ---- μ⁻: N₀e^(−t/τ)[1 + A e^(−λt) cos(2πνt + φ)] + c per raw bin, t = (i − t0)Δt; fitted
// by max-likelihood (a few counts a bin at 20 µs, where χ² with σ² = n is biased) ----
struct MuMinusTruth {
  double n0 = 800.0, tau = 2.03, a = 0.15, lambda = 0.3, phase_deg = 20.0, nu = 1.5, c = 5.0;
  double dt = 0.01;
  int t0 = 50, bins = 2050;
};

inline PsiBinFile simulate_mu_minus(const MuMinusTruth& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  PsiBinFile f = empty_file(s.dt, 1, s.bins);
  for (int i = 0; i < s.bins; ++i) {
    double mean = s.c;
    if (i >= s.t0) {
      const double t = (i - s.t0) * s.dt;
      mean += s.n0 * std::exp(-t / s.tau) *
              (1.0 + s.a * std::exp(-s.lambda * t) * std::cos(2.0 * std::numbers::pi * s.nu * t + s.phase_deg * std::numbers::pi / 180.0));
    }
    f.histograms[0][i] = draw(rng, mean);
  }
  return f;
}

inline std::string mu_minus_msr(const MuMinusTruth&) {
  return "mu minus simulation\nFITPARAMETER\n"
         " 1 N0 790 5\n 2 tau 2.0 0.01\n 3 A 0.14 0.01\n 4 lambda 0.32 0.02\n 5 phase 15 2\n 6 nu 1.49 0.01\n 7 c 4.5 0.5\n"
         "THEORY\nmuMinusExpTF 1 2 3 4 5 6\n+\nasymmetry 7\n"
         "GLOBAL\nfittype 4\n"
         "RUN sim PIE1 PSI PSI-BIN\nforward 1\nt0 50\ndata 55 2049\nfit 0.05 19.9\npacking 1\n"
         "COMMANDS\nMAX_LIKELIHOOD\nMINIMIZE\nHESSE\n";
}

// ---- precession at 10 kG seen in one histogram (or a forward/backward pair) ----
struct PrecessionTruth {
  double n0 = 5000.0, a = 0.25, lambda = 0.5, phase_deg = 30.0, field_g = 10000.0, bkg = 2.0;  // ≥ 300 counts a bin to 6 µs
  double dt = 0.001;  // 1 ns: 135.5 MHz is sampled 7 times a period
  int t0 = 100, bins = 8100;
};

// Forward (and backward, 180° away) histograms N₀e^(−t/τ)(1 ± A e^(−λt) cos(2πγBt + φ)) + bkg;
// Poisson counts, or (poisson = false) the means rounded to whole counts.
inline PsiBinFile simulate_precession(const PrecessionTruth& s, std::uint64_t seed, bool pair, bool poisson = true) {
  std::mt19937_64 rng(seed);
  PsiBinFile f = empty_file(s.dt, pair ? 2 : 1, s.bins);
  for (int h = 0; h < (pair ? 2 : 1); ++h)
    for (int i = 0; i < s.bins; ++i) {
      double mean = s.bkg;
      if (i >= s.t0) {
        const double t = (i - s.t0) * s.dt;
        const double a = s.a * std::exp(-s.lambda * t) *
                         std::cos(2.0 * std::numbers::pi * kGamma * s.field_g * t + s.phase_deg * std::numbers::pi / 180.0);
        mean += s.n0 * std::exp(-t / 2.1969811) * (1.0 + (h == 0 ? a : -a));
      }
      f.histograms[h][i] = poisson ? draw(rng, mean) : static_cast<std::int32_t>(std::llround(mean));
    }
  return f;
}

// The msr fitting the precession as fittype 0 (lab, single histogram), 1 (RRF single
// histogram), 2 (lab asymmetry) or 3 (RRF asymmetry). The RRF runs at 134.5 MHz with packs of 37
// raw bins (ten periods of the 270 MHz sum frequency); their THEORY is written in the rotating
// frame (frequency γB − 134.5 MHz) so that `field` means the same in every fit. The fit starts
// at 50 ns, after the first RRF pack (for fittype 3 musrfit's first pack holds 36 raw bins, not
// a whole number of sum-frequency periods).
inline std::string precession_msr(const PrecessionTruth&, int fittype, double rrf_phase = 0.0) {
  const bool rrf = fittype == 1 || fittype == 3, asym = fittype >= 2;
  std::string s = "precession simulation\nFITPARAMETER\n 1 asym 0.24 0.01\n 2 rate 0.45 0.02\n 3 phase 28 1\n 4 field 10002 0.5\n";
  if (fittype == 0) s += " 5 N0 4950 5\n 6 bkg 1.9 0.1\n";
  s += "THEORY\nasymmetry 1\nsimplExpo 2\nTFieldCos 3 fun1\nFUNCTIONS\n";
  s += rrf ? "fun1 = par4 * gamma_mu - 134.5\n" : "fun1 = par4 * gamma_mu\n";
  s += "GLOBAL\nfittype " + std::to_string(fittype) + "\n";
  if (rrf) {
    char ph[64];
    std::snprintf(ph, sizeof ph, "%g", rrf_phase);
    s += "rrf_freq 134.5 MHz\nrrf_packing 37\nrrf_phase " + std::string(ph) + "\n";
  }
  s += "RUN sim PIE1 PSI PSI-BIN\n";
  if (asym) s += "forward 1\nbackward 2\nbackground 10 90 10 90\ndata 105 8099 105 8099\nt0 100 100\n";
  else s += "forward 1\ndata 105 8099\nt0 100\n";
  if (fittype == 0) s += "norm 5\nbackgr.fit 6\n";
  if (fittype == 1) s += "background 10 90\n";
  if (!rrf) s += "packing 1\n";
  s += "fit 0.05 6\nCOMMANDS\nMINIMIZE\nHESSE\n";
  return s;
}

// ---- β-NMR: F± = N(t)(1 ± A/2), B± = αN(t)(1 ∓ A/2) + background, A = a·e^(−λt) ----
struct BnmrTruth {
  double n0 = 3000.0, decay = 3.0, a = 0.12, lambda = 0.8, alpha = 1.15, bkg = 4.0;
  double dt = 0.01;
  int t0 = 10, bins = 1000;
};

inline PsiBinFile simulate_bnmr(const BnmrTruth& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  PsiBinFile f = empty_file(s.dt, 4, s.bins);  // histograms 1..4: F+ B+ F- B-
  for (int i = 0; i < s.bins; ++i) {
    double n = 0.0, half = 0.0;
    if (i >= s.t0) {
      const double t = (i - s.t0) * s.dt;
      n = s.n0 * std::exp(-t / s.decay);
      half = 0.5 * s.a * std::exp(-s.lambda * t);
    }
    f.histograms[0][i] = draw(rng, s.bkg + n * (1.0 + half));
    f.histograms[1][i] = draw(rng, s.bkg + s.alpha * n * (1.0 - half));
    f.histograms[2][i] = draw(rng, s.bkg + n * (1.0 - half));
    f.histograms[3][i] = draw(rng, s.bkg + s.alpha * n * (1.0 + half));
  }
  return f;
}

inline std::string bnmr_msr(const BnmrTruth&, bool with_alpha) {
  std::string s = "beta-NMR simulation\nFITPARAMETER\n 1 alpha 1.1 0.01\n 2 asym 0.11 0.01\n 3 rate 0.75 0.05\n"
                  "THEORY\nasymmetry 2\nsimplExpo 3\n"
                  "RUN sim BNMR TRIUMF PSI-BIN\nfittype 5\n";
  if (with_alpha) s += "alpha 1\n";
  s += "forward 1 3\nbackward 2 4\nbackground 1 9 1 9\ndata 11 999 11 999\nt0 10 10 10 10\nfit 0.05 9\npacking 5\n"
       "COMMANDS\nMINIMIZE\nHESSE\n";
  return s;
}

// ---- fitting ----
struct FitOutcome {
  bool converged = false;
  std::map<std::string, double> value, error;
  double chi2 = 0.0;
  int ndf = 0;
  std::size_t bins = 0;
};

inline FitOutcome fit_msr(const std::string& text, const PsiBinFile& data) {
  const MsrFile msr = parse_msr(text, "sim.msr");
  const FitSetup setup = prepare_fit(msr, [&](const MsrRun&) { return data; });
  auto ev = BackendRegistry<Chi2Evaluator>::instance().create("cpu");
  ev->configure({.threads = 2});
  ev->upload(setup.data);
  const FitResult r = run_fit(*ev, msr, setup.used, setup.data.statistic);
  FitOutcome o;
  o.converged = r.converged && r.hesse_ok && std::isfinite(r.fmin);
  for (const auto& p : r.params) {
    o.value[p.name] = p.value;
    o.error[p.name] = p.error;
  }
  o.chi2 = r.fmin;
  o.bins = setup.data.bins();
  o.ndf = static_cast<int>(o.bins) - r.free_count();
  return o;
}

// χ² and gradient of `backend` against the cpu, in double, at each simulated case's start values.
struct Difference {
  std::string name;
  double chi2_rel = 0.0, grad_rel = 0.0;
};

inline std::vector<Difference> backend_differences(const std::string& backend) {
  const PrecessionTruth pt;
  const PsiBinFile single = simulate_precession(pt, 21, false), pair = simulate_precession(pt, 31, true);
  const std::vector<std::pair<std::string, std::pair<std::string, PsiBinFile>>> cases = {
      {"mu minus (4)", {mu_minus_msr({}), simulate_mu_minus({}, 11)}},
      {"single histogram RRF (1)", {precession_msr(pt, 1), single}},
      {"asymmetry RRF (3)", {precession_msr(pt, 3), pair}},
      {"beta-NMR (5)", {bnmr_msr({}, true), simulate_bnmr({}, 41)}},
  };
  std::vector<Difference> out;
  for (const auto& [name, c] : cases) {
    const MsrFile msr = parse_msr(c.first, "sim.msr");
    const FitSetup setup = prepare_fit(msr, [&](const MsrRun&) { return c.second; });
    std::vector<double> p;
    for (const auto& q : msr.params) p.push_back(q.value);
    auto value = [&](const std::string& b, std::vector<double>& g) {
      auto ev = BackendRegistry<Chi2Evaluator>::instance().create(b);
      ev->configure({.threads = 2});
      ev->upload(setup.data);
      g.assign(p.size(), 0.0);
      return ev->evaluate_with_gradient(p, g);
    };
    std::vector<double> gc, gb;
    const double fc = value("cpu", gc), fb = value(backend, gb);
    double num = 0.0, den = 0.0;
    for (std::size_t i = 0; i < gc.size(); ++i) {
      num += (gb[i] - gc[i]) * (gb[i] - gc[i]);
      den += gc[i] * gc[i];
    }
    out.push_back({name, std::fabs(fb - fc) / std::fabs(fc), std::sqrt(num / std::max(den, 1e-300))});
  }
  return out;
}

}  // namespace tomo::musr::test
