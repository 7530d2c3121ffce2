// t0 from the prompt peak, as musrt0 --getT0FromPromptPeak <offset> sets it before a fit:
// every histogram's t0 at its bin of maximum counts and the data range from t0 + offset to
// the end of the histogram. musrfit's tutorial msr ships `t0 1` placeholders for musrt0 to fill.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "compute/musr/msr.hpp"
#include "compute/musr/psi_bin.hpp"

namespace tomo::musr {

// The default offset of the first good bin after t0: ⌊10 ns/Δt⌋ bins (musrfit's own default
// data start where an msr gives none).
int default_first_good_offset(double dt_us);

// Sets each RUN's `t0` (single histogram: one per forward histogram; asymmetry: f1 b1 f2 b2 …)
// and `data` (from the first histogram of each group), in the settings and in the msr text
// written back (the RUN block's t0/data lines replaced). `offset` < 0: the default above.
// Returns one line per RUN saying what it set.
std::vector<std::string> apply_auto_t0(MsrFile& msr, const std::function<PsiBinFile(const MsrRun&)>& load, int offset);

// How far (bins) the prompt peak lies after t0 before a warning: ⌊10 ns/Δt⌋, at least 3.
int t0_warning_bins(double dt_us);

}  // namespace tomo::musr
