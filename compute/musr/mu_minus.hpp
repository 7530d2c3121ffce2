// μ⁻ histogram (fittype 4) as musrfit's PRunMuMinus prepares it: the grouped histogram packed
// into plain counts per pack, no background, no N0 or lifetime: the THEORY is the whole
// histogram (e.g. muMinusExpTF terms plus a constant).
#pragma once
#include <cstdint>
#include <vector>

#include "compute/musr/fit_setup.hpp"
#include "compute/musr/run_groups.hpp"

namespace tomo::musr {

// The fitted bins of one μ⁻ RUN with packing p: sums of p raw bins, error √n (1 where n = 0),
// at t_k = Δt((fgb − ½) + p/2 − ⌊t0⌋) + k·p·Δt; the model is the THEORY itself (scale 1 for
// max-likelihood).
RunBins mu_minus_bins(const MsrFile& msr, const MsrRun& r, const PsiBinFile& f, const std::vector<prep::AddedRun>& added,
                      int p, ProgramBuilder& b, std::int32_t theory, RunInfo& info);

}  // namespace tomo::musr
