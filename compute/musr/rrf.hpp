// Rotating reference frame fits (fittypes 1 and 3) as musrfit's PRunSingleHistoRRF and
// PRunAsymmetryRRF prepare them: the data become an asymmetry, multiplied by
// 2cos(ω_RRF t + φ_RRF) and packed by GLOBAL's rrf_packing, so that the fast precession at
// ω_RRF averages out and the THEORY, written in the rotating frame, is fitted to the slow part.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "compute/musr/fit_setup.hpp"
#include "compute/musr/run_groups.hpp"

namespace tomo::musr {

// musrfit's phase of the RRF: φ_RRF = rrf_phase · 2π/180 (musrfit's factor; twice the phase
// in degrees would be ·π/180).
double rrf_phase_rad(const MsrRrf& rrf);

// The frequency (MHz) musrfit takes for the N0 window of an RRF single histogram: the largest
// point of the strongly apodized power spectrum of the raw counts `n` (bin width dt_us) at or
// above 10 MHz that is not followed by a smaller one. 0 when there is none.
double rrf_main_frequency(std::span<const double> n, double dt_us);

// Single histogram RRF (fittype 1): A(t) = e^(t/τ)(N(t) − Bkg)/N0 − 1 with N0 the mean of
// e^(t/τ)(N − Bkg) over the first ≈1 µs (musrfit's estimate), times 2cos(ω_RRF t + φ_RRF),
// packed. The model is the THEORY.
RunBins single_histogram_rrf_bins(const MsrFile& msr, const MsrRun& r, const PsiBinFile& f,
                                  const std::vector<prep::AddedRun>& added, ProgramBuilder& b, std::int32_t theory,
                                  RunInfo& info);

// Asymmetry RRF (fittype 3): A = (F−B)/(F+B) per raw bin, times 2cos(ω_RRF t + φ_RRF), packed.
// The model is the asymmetry's (f(αβ+1) − (α−1)) / ((α+1) − f(αβ−1)) of the THEORY f.
RunBins asymmetry_rrf_bins(const MsrFile& msr, const MsrRun& r, const PsiBinFile& f, const std::vector<prep::AddedRun>& added,
                           ProgramBuilder& b, std::int32_t theory, RunInfo& info);

}  // namespace tomo::musr
