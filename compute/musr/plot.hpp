// PNG plots of one run after a fit: data and fit in the asymmetry view (single histograms
// with the lifetime correction (y − Bkg)/(N0 e^(−t/τ)) − 1), and the normalised residuals.
#pragma once
#include <filesystem>
#include <span>

#include "compute/musr/fit_problem.hpp"
#include "compute/musr/fit_setup.hpp"

namespace tomo::musr {

// Writes a 1000×780 RGB PNG with a title and axes (ticks, labels): top asymmetry (grey points: data rebinned to ≤ 500 points
// with error bars, red: fit), bottom 30% residuals (y−θ)/σ of the same bins (±3 marked).
void write_run_plot(const std::filesystem::path& path, const RunBins& bins, const RunInfo& info,
                    std::span<const double> params);

}  // namespace tomo::musr
