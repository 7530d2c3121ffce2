// The eq. (5) Monte-Carlo: written out from the formula, independently of the expression
// program, so that fits of its output test the whole chain (inverse-crime free).
#include "compute/musr/simulator.hpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/musr/expression.hpp"

namespace tomo::musr {

std::vector<std::vector<std::int32_t>> simulate_eq5_counts(const Eq5Config& c) {
  if (c.detectors < 1 || c.bins < 2 || !(c.dt_us > 0.0) || c.t0_bin < 0 || c.t0_bin >= c.bins)
    throw InputError("musr simulation: detectors ≥ 1, bins ≥ 2, dt > 0 and 0 ≤ t0 < bins are required");
  std::vector<std::vector<std::int32_t>> out(static_cast<std::size_t>(c.detectors));
  const double omega = 2.0 * M_PI * 0.01355388094 * c.field_g;  // rad/µs
  for (int j = 0; j < c.detectors; ++j) {
    std::mt19937_64 rng(c.seed * 1000003ull + static_cast<std::uint64_t>(j));
    const double phi = c.phase(j) * M_PI / 180.0;
    auto& h = out[j];
    h.resize(static_cast<std::size_t>(c.bins));
    for (int i = 0; i < c.bins; ++i) {
      const double t = (i - c.t0_bin) * c.dt_us;
      double mean = c.bkg;
      if (t >= 0.0)
        mean += c.n0 * std::exp(-t / 2.1969811) *
                (1.0 + c.asymmetry * std::exp(-0.5 * c.sigma * c.sigma * t * t) * std::cos(omega * t + phi));
      std::poisson_distribution<std::int32_t> pois(mean);
      h[i] = pois(rng);
    }
  }
  return out;
}

PsiBinFile simulate_eq5(const Eq5Config& c) {
  PsiBinFile f;
  f.bin_width_us = c.dt_us;
  f.sample = "sim eq.5";
  f.temperature = "1.0K";
  char field[16];
  std::snprintf(field, sizeof field, "%.3fG", c.field_g);
  f.field = field;
  f.setup = "tomoraster";
  f.histograms = simulate_eq5_counts(c);
  for (int j = 0; j < c.detectors; ++j) {
    f.t0.push_back(c.t0_bin);
    f.first_good.push_back(c.first_good);
    f.last_good.push_back(c.bins - 1);
    char label[16];
    std::snprintf(label, sizeof label, "D%d", j + 1);
    f.labels.push_back(label);
  }
  return f;
}

std::string eq5_msr(const Eq5Config& c, const std::string& data_file, bool max_likelihood) {
  const double dt_ns = c.dt_us * 1e3;
  std::ostringstream os;
  os.precision(8);
  os << "eq. (5) of [Locans2017]: " << c.detectors << " detectors, Gaussian-damped precession (tomoraster simulation)\n";
  os << "###############################################################\n";
  os << "FITPARAMETER\n";
  os << "#      No Name        Value       Step        Pos_Error   Boundaries\n";
  os << "        1 Sigma       " << c.sigma * 0.9 << "   0.01    none    0   none\n";
  os << "        2 Field       " << c.field_g - 0.3 << "   0.1\n";
  for (int j = 0; j < c.detectors; ++j) {
    const int base = 3 + 4 * j;
    os << "        " << base << " N0_" << j + 1 << "   " << c.n0 / dt_ns * 0.98 << "   0.5\n";
    os << "        " << base + 1 << " Asy_" << j + 1 << "   " << c.asymmetry * 0.9 << "   0.01   none   0   0.5\n";
    os << "        " << base + 2 << " Phase_" << j + 1 << "   " << c.phase(j) + 4.0 << "   1.0\n";
    os << "        " << base + 3 << " Bkg_" << j + 1 << "   " << c.bkg / dt_ns * 1.1 << "   0.05\n";
  }
  os << "\n###############################################################\n";
  os << "THEORY\n";
  os << "asymmetry  map1\n";
  os << "simpleGss  1          (rate)\n";
  os << "TFieldCos  map2 fun1  (phase frequency)\n";
  os << "\n###############################################################\n";
  os << "FUNCTIONS\n";
  os << "fun1 = gamma_mu * par2\n";
  os << "\n###############################################################\n";
  os << "GLOBAL\n";
  os << "fittype         0         (single histogram fit)\n";
  os << "data            " << c.first_good << "   " << c.bins - 1 << "\n";
  os << "t0              " << c.t0_bin << "\n";
  os << "fit             0.0   " << (c.fit_end_us > 0.0 ? c.fit_end_us : (c.bins - 1 - c.t0_bin) * c.dt_us) << "\n";
  os << "packing         1\n";
  for (int j = 0; j < c.detectors; ++j) {
    const int base = 3 + 4 * j;
    os << "\n###############################################################\n";
    os << "RUN " << data_file << " MUE4 PSI PSI-BIN   (name beamline institute data-file-format)\n";
    os << "norm            " << base << "\n";
    os << "backgr.fit      " << base + 3 << "\n";
    os << "lifetimecorrection\n";
    os << "map             " << base + 1 << " " << base + 2 << "\n";
    os << "forward         " << j + 1 << "\n";
  }
  os << "\n###############################################################\n";
  os << "COMMANDS\n";
  if (max_likelihood) os << "MAX_LIKELIHOOD\n";
  os << "MIGRAD\nHESSE\nSAVE\n";
  return os.str();
}

}  // namespace tomo::musr
