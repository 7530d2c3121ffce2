// From an msr file and its PSI-BIN data to the bins every backend fits: grouping, t0
// alignment, packing, SCALE_N0_BKG, background, fit range, and one model program per run.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "compute/musr/fit_problem.hpp"
#include "compute/musr/msr.hpp"
#include "compute/musr/psi_bin.hpp"

namespace tomo::musr {

// What plots and printouts need besides the fitted bins.
struct RunInfo {
  std::string name;      // the RUN's file, as written
  int fittype = 0;
  double dt_us = 0.0;    // raw bin width
  int packing = 1;
  double normalizer = 1.0;   // p·Δt[ns] with SCALE_N0_BKG, else 1
  double background = 0.0;   // estimated or fixed background in theory units (single histogram)
  std::vector<double> backgrounds;  // asymmetry: per forward/backward group, counts per raw bin
  int lifetime_param = -1;   // 0-based parameter of the lifetime, −1 = the muon lifetime
  int norm_param = -1;       // 0-based N0 parameter when it is one (not a function)
  int bkg_param = -1;        // 0-based fitted background parameter (backgr.fit)
  bool lifetime_correction = false;
};

struct FitSetup {
  FitData data;
  std::vector<RunInfo> runs;
  std::vector<bool> used;  // per parameter: does any model use it (unused ones are fixed)
};

// Reads the RUN's data file (looked up beside the msr file, then as written).
PsiBinFile load_run_data(const MsrFile& msr, const MsrRun& run);

// Builds the bins and models of every run. `load` returns the data file of a run (tests
// pass in-memory files). MAX_LIKELIHOOD with asymmetry runs falls back to χ² (as musrfit).
FitSetup prepare_fit(const MsrFile& msr, const std::function<PsiBinFile(const MsrRun&)>& load);

// The THEORY A(t) of one run (maps and funX resolved) as node of `b`.
std::int32_t build_theory(const MsrFile& msr, const MsrRun& run, ProgramBuilder& b);
// Tells b the fixed parameters a native user function may fold into its tables
// (ProgramBuilder::set_fixed): all of step 0, or none when a COMMANDS line can release one
// (RELEASE, RESTORE).
void register_fixed_parameters(const MsrFile& msr, ProgramBuilder& b);

}  // namespace tomo::musr
