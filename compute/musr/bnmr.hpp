// β-NMR asymmetry (fittype 5) as musrfit's PRunAsymmetryBNMR prepares it: four histograms,
// forward and backward for each beam helicity, give the helicity difference of the two
// asymmetries; the model is the same difference of the alpha/beta asymmetries of ±A(t)/2.
#pragma once
#include <cstdint>
#include <vector>

#include "compute/musr/fit_setup.hpp"
#include "compute/musr/run_groups.hpp"

namespace tomo::musr {

// A β-NMR run: fittype 5, or TRIUMF's β-NMR beamlines BNMR and BNQR (whose histograms follow
// the beam pulse and have no prompt peak).
bool beta_nmr_run(const MsrRun& r);

// The fitted bins and model of one β-NMR RUN (`forward F+ F-`, `backward B+ B-`, t0 list
// F+ B+ F- B-); packing p. Refuses `backgr.fix` (musrfit reads four fixed backgrounds there).
RunBins beta_nmr_bins(const MsrFile& msr, const MsrRun& r, const PsiBinFile& f, const std::vector<prep::AddedRun>& added,
                      int p, ProgramBuilder& b, std::int32_t theory, RunInfo& info);

}  // namespace tomo::musr
