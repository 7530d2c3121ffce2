// musrfit's rules for a RUN's raw bins before packing (PRunSingleHisto / PRunAsymmetry):
// which t0 a histogram gets, the data range when none is given, and the estimated
// background. Each rule is musrfit's, quirks included; docs/musr.md lists them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tomo::musr {

// The accelerator period the background window is cut to (µs): PSI 0.01975, TRIUMF 0.04337,
// none elsewhere (musrfit: the lower-cased institute contains "psi" / "triumf").
double beam_period_us(const std::string& institute);

// The bin of the largest count (the first one): musrfit's estimated t0 where neither the msr
// nor the data file gives one (a header t0 of 0 counts as none).
int bin_of_maximum(const std::vector<double>& counts);

// The first bin of the run of bins at or above half the maximum that holds the maximum: where
// the prompt peak rises.
int rising_edge(const std::vector<double>& counts);
// Whether t0 lies in the quiet stretch before a prompt peak: the bins [t0, edge) hold on average
// less than half the counts of as many bins from `edge` on (the peak and the decay after it).
// musrt0's placeholders (t0 1) and a t0 set early pass; a histogram without a prompt peak (a
// low-energy beam's flat decay, whose maximum is a Poisson excursion) does not, as the counts
// before and after its maximum are the same.
bool t0_before_prompt_peak(const std::vector<double>& counts, double t0, int edge);
// ISIS and RIKEN-RAL are pulsed sources: their histograms have no prompt peak.
bool pulsed_source(const std::string& institute);

// t0 of histogram `index` of the t0 list: the RUN's (GLOBAL's where the RUN gives fewer), else
// the data file's when > 0, else the bin of maximum counts. Asymmetry lists are f1 b1 f2 b2 ….
double resolve_t0(const std::vector<double>& msr_t0s, std::size_t index, double header_t0, const std::vector<double>& counts);

// Data range [start, end) of one histogram: the msr's where given, else
// ⌊t0⌋ + ⌊10 ns / Δt⌋ to the end of the histogram; start > end swapped; an end beyond the
// histogram clamped to its last bin (musrfit: size − 1). nullopt: start outside the histogram.
struct BinRange {
  int start = 0, end = 0;
};
std::optional<BinRange> resolve_data_range(std::optional<int> start, std::optional<int> end, double t0, double dt_us, int size);

// The default background window when the msr gives none: [⌊0.1·t0⌋, ⌊0.6·t0⌋].
BinRange default_background_window(double t0);

// The background window cut to whole beam periods counted in PACKED bins:
// end = start + ⌊⌊(end−start)·Δt·p/T⌋·T/(Δt·p)⌋ (unchanged when that leaves end = start or T = 0).
BinRange trim_background_window(BinRange w, double dt_us, int packing, double period_us);

// Asymmetry (PRunAsymmetry::SubtractEstimatedBkg): the inclusive mean over [start, end] and the
// variance it adds to each raw bin, Σ/N².
struct BackgroundEstimate {
  double mean = 0.0;
  double variance = 0.0;
};
BackgroundEstimate asymmetry_background(const std::vector<double>& counts, BinRange trimmed);

// Single histogram (PRunSingleHisto::EstimateBkg): Σ over [start, end) divided by end − start + 1
// (musrfit's sum leaves out the end bin its count includes), counts per raw bin.
double single_histogram_background(const std::vector<double>& counts, BinRange trimmed);

// The asymmetry fit types' packing (PRunAsymmetry and PRunAsymmetryBNMR::PrepareFitData): bins
// [fgb, lgb) of background-subtracted values with their variances, emitted as (Σvalue/p,
// √Σvariance/p) when (i − fgb) % p == 0 and i ≠ fgb (so the last pack is never emitted), error 1
// where the mean is 0; p = 1 keeps every bin with its own error. musrfit packs the forward
// histogram and then the backward one with the same two running sums and does not reset them in
// between: the forward range's unemitted last pack (its last p bins when the range divides
// evenly) is added into the backward's first pack, value and variance. `carry` holds those sums
// from one call to the next, so calling forward then backward with one carry does the same.
struct PackCarry {
  double value = 0.0, variance = 0.0;
};
std::vector<std::pair<double, double>> packed_means(const std::vector<double>& value, const std::vector<double>& variance, int fgb,
                                                    int lgb, int p, PackCarry& carry);

}  // namespace tomo::musr
