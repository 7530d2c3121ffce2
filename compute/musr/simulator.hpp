// Monte-Carlo μSR histograms from an independent closed-form model (not the program under
// test): [Locans2017]'s 16-detector case, eq. (5): N_j(t) = N0 e^(−t/τ)[1 + A_j e^(−½(σt)²)
// cos(γ_μ B t + φ_j)] + Bkg, Poisson counts per bin.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compute/musr/psi_bin.hpp"

namespace tomo::musr {

struct Eq5Config {
  int detectors = 16;
  int bins = 8192;           // per histogram (PSI-BIN: ≤ 32767)
  double dt_us = 0.001953125;  // bin width (PSI GPS: 0.1953125 ns)
  int t0_bin = 200;
  int first_good = 210;
  double n0 = 400.0;         // expected counts per bin at t0
  double bkg = 2.0;          // expected background counts per bin
  double asymmetry = 0.22;   // A_j (all detectors)
  double sigma = 0.35;       // µs⁻¹
  double field_g = 100.0;    // B in gauss (ν = γ_μ/2π·B)
  double phase0_deg = 5.0;   // φ_j = φ0 + 360°·j/detectors
  double fit_end_us = 0.0;    // msr fit range end (0: the last bin)
  std::uint64_t seed = 1;
  double phase(int j) const { return phase0_deg + 360.0 * j / detectors; }
};

// Histograms [detector][bin]; raw bin i sits at t = (i − t0)·Δt (musrfit's convention).
std::vector<std::vector<std::int32_t>> simulate_eq5_counts(const Eq5Config& c);
// The same as a PSI-BIN file (t0, good bins, bin width, labels filled in).
PsiBinFile simulate_eq5(const Eq5Config& c);
// An msr file fitting the eq. (5) data in `data_file` (without extension): one RUN per
// detector, shared σ and B, per-detector N0, A, φ, background; starting values off the truth.
std::string eq5_msr(const Eq5Config& c, const std::string& data_file, bool max_likelihood = false);

}  // namespace tomo::musr
