// EIR deconvolution of measured oat data before FBP ([Wang2013]): P̃ = Ũ·W/H̃_e per transducer,
// W a Hann window in temporal frequency, through FFTW with zero padding (no wrap-around).
#pragma once
#include <span>
#include <vector>

#include "compute/oat/geometry.hpp"

namespace tomo::oat {

// W(f) = ½(1 + cos(πf/f_c)) for f < f_c, else 0.
double hann_window(double f_mhz, double cutoff_mhz);
// The default cutoff: the lowest frequency where |H̃_e| falls below 1 % of its peak, at most
// Nyquist (past it W/H̃_e would amplify noise by more than 100).
double default_cutoff_mhz(const OatGeometry& g);
// Deconvolves every trace u[q·K + k] by g.eir (a copy when the EIR is none), cutoff ≤ 0 means
// default_cutoff_mhz; with no EIR the Hann window alone is applied when cutoff > 0.
std::vector<double> deconvolve_eir(const OatGeometry& g, std::span<const double> u, double cutoff_mhz);

}  // namespace tomo::oat
