// Non-μSR x-y data (musrfit's fittype 8, PRunNonMusr): the RUN's `xy-data` columns of an
// ASCII, DB or DAT file, packed as musrfit packs them, the points within the fit range in x,
// and θ(x) = the THEORY with x in the place of t. The bins go to every backend as any run's
// (t = x, y, σ), so cpu, cuda and gl-compute evaluate the same χ².
#pragma once
#include "compute/musr/fit_problem.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/msr.hpp"
#include "compute/musr/xy_data.hpp"

namespace tomo::musr {

// Reads the RUN's data file (found as find_run_file finds it) with its x-y reader.
XyData load_xy_data(const MsrFile& msr, const MsrRun& run);

// The fitted points of `run` from `data`; fills `info` (fittype 8, packing). InputError naming
// the msr line for a missing column, an error of 0 in the fit range, or fewer than 2 points.
RunBins xy_run_bins(const MsrFile& msr, const MsrRun& run, const XyData& data, RunInfo& info);

}  // namespace tomo::musr
