// PNG plots of one run after a fit: data and fit in the asymmetry view (single histograms
// with the lifetime correction (y − Bkg)/(N0 e^(−t/τ)) − 1), and the normalised residuals.
#pragma once
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "compute/musr/fit_problem.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/fourier.hpp"
#include "compute/musr/plot_block.hpp"

namespace tomo::musr {

// Writes a 1000×780 RGB PNG with a title and axes (ticks, labels): top asymmetry (grey points: data rebinned to ≤ 500 points
// with error bars, red: fit), bottom 30% residuals (y−θ)/σ of the same bins (±3 marked).
// `view` (the msr's PLOT block) limits the time axis to its range and sets the asymmetry axis.
void write_run_plot(const std::filesystem::path& path, const RunBins& bins, const RunInfo& info,
                    std::span<const double> params, const PlotView& view = {});

// The asymmetry view of a run's bins at the fitted parameters: asymmetry runs as they are,
// single histograms as (y − Bkg)/(N0 e^(−t/τ)) − 1 (0 where N0 is a function).
std::vector<double> asymmetry_view(const RunBins& bins, const RunInfo& info, std::span<const double> params);

// A 1000×560 PNG of the FOURIER block's `plot` quantity (real, imaginary, both, power |F| or
// phase) against frequency, titled with the run.
void write_fourier_plot(const std::filesystem::path& path, const FourierSpectrum& f, const FourierSettings& s,
                        const std::string& run_name);

}  // namespace tomo::musr
