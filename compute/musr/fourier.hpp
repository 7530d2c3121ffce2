// The Fourier transform musrfit's musrview plots from an msr's FOURIER block (PFourier): the
// asymmetry view of a run's fitted bins, zero-padded to 2^fourier_power points, optionally
// DC-corrected and apodized, transformed, its phase referred to t = 0, rotated by `phase`,
// on a frequency axis in Gauss, Tesla, MHz or Mc/s.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "compute/musr/msr.hpp"

namespace tomo::musr {

enum class FourierUnit { gauss, tesla, mhz, mc_per_s };
enum class Apodization { none, weak, medium, strong };
enum class FourierPlot { real, imag, real_and_imag, power, phase };

struct FourierSettings {
  FourierUnit unit = FourierUnit::gauss;
  int power = 0;  // zero padding to 2^power points (0: none)
  bool dc_corrected = false;
  Apodization apodization = Apodization::none;
  FourierPlot plot = FourierPlot::power;
  double phase_deg = 0.0;                // the rotation fourier_transform applies
  std::vector<double> phases_deg{0.0};   // the `phase` line: one, or one per run of the first PLOT block
  std::optional<std::pair<double, double>> range{};  // in `unit`
};

// The FOURIER block of the msr, nullopt without one. `phase` takes values, parameters (`parN`
// from `params`, relative ones with a `parRN` reference) or `par(X0, offset, n)`, as musrview;
// several phases pair with the first PLOT block's runs. A bad value is refused naming
// file:line and token.
std::optional<FourierSettings> read_fourier_block(const MsrFile& msr, std::span<const double> params);

// The phase of RUN `run` (0-based): the one phase, or the list's entry at the run's position in
// the first PLOT block (`plot_runs`, from first_plot_runs; in RUN order without one); a run
// not plotted there takes the first.
double run_phase(const FourierSettings& s, const std::vector<int>& plot_runs, std::size_t run);

struct FourierSpectrum {
  std::vector<double> x;       // frequency axis in the unit, 0, Δf, 2Δf, … (within `range`)
  std::vector<double> re, im;  // phase-rotated real and imaginary parts
  double resolution = 0.0;     // Δf in the unit
};

// `a` sampled at evenly spaced times `t` (at least 2). N = max(2^power, a.size()) points.
FourierSpectrum fourier_transform(std::span<const double> t, std::span<const double> a, const FourierSettings& s);

// CSV: header, then `x,real,imag,power,phase_deg` per frequency (power = |F| as musrfit's).
std::string fourier_csv(const FourierSpectrum& f, const FourierSettings& s);

const char* unit_name(FourierUnit u);

}  // namespace tomo::musr
