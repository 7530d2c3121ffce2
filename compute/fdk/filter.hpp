// FDK pre-processing as RabbitCT assumes it was done: cosine weighting, Parker short-scan
// weights, row-wise ramp filtering (Ram-Lak, optionally Shepp-Logan/Hann windowed) with zero
// padding via FFTW, and the absolute scale (τ, Δβ) so the back-projection Σ_n (1/w²)·Î_n(u,v)
// with the normalised matrices of CArmGeometry returns attenuation in mm⁻¹.
#pragma once
#include <string>
#include <vector>

#include "compute/fdk/geometry.hpp"

namespace tomo::fdk {

enum class RampWindow { RamLak, SheppLogan, Hann };
// "ram-lak" | "shepp-logan" | "hann"; InputError prefixed with `where` otherwise.
RampWindow ramp_window_from_name(const std::string& name, const std::string& where);
const char* ramp_window_name(RampWindow w);

struct FilterOptions {
  RampWindow window = RampWindow::RamLak;
  bool parker = true;   // false: uniform weight π/arc (exact only for a full 360° scan)
  bool cosine = true;
};

class FdkFilter {
 public:
  FdkFilter(const CArmGeometry& g, FilterOptions options = {});
  ~FdkFilter();
  FdkFilter(const FdkFilter&) = delete;
  FdkFilter& operator=(const FdkFilter&) = delete;

  // Line integrals of projection n (sx·sy, row-major) → the pre-processed projection.
  // Thread-safe (FFTW plans are made once, under a mutex, in the constructor).
  void apply(int n, const float* line_integrals, float* out) const;

  // Ramp-filters one row in place (sx samples at the virtual spacing τ): τ·Σ g_m h_{k−m} with
  // the window, no weights and no Δβ. For tests and tools.
  void filter_row(std::vector<double>& row) const;

  // Fan angle of detector column u (rad); positive γ is counter-clockwise, i.e. towards −u.
  double gamma(double u) const;
  // Parker (1982) weight for β measured from the scan start; conjugate rays (β, γ) and
  // (β + π + 2γ, −γ) sum to 1. δ = (arc − π)/2.
  double parker_weight(double beta, double gamma) const;
  // Row filter in frequency: H[k], k = 0..P/2 (τ·DFT of the sampled Ram-Lak kernel × window;
  // the Δβ and 1/P factors are not included).
  const std::vector<double>& response() const { return response_; }
  int padded_size() const { return padded_; }
  // The per-pixel cosine weights (sy·sx, row-major; all 1 when options.cosine is false) and the
  // per-column weights of projection n (Parker, or π/arc) that apply() multiplies the raw data by;
  // spectrum_scale() = Δβ/P multiplies the response inside apply(). Exposed for the cuFFT filter.
  const std::vector<double>& cosine_weights() const { return cosine_; }
  std::vector<double> column_weights(int n) const;
  double spectrum_scale() const;
  const CArmGeometry& geometry() const { return g_; }
  const FilterOptions& options() const { return o_; }

 private:
  CArmGeometry g_;
  FilterOptions o_;
  int padded_ = 0;
  std::vector<double> response_;
  std::vector<double> cosine_;  // sy·sx
  double flat_weight_ = 0;      // without Parker: π over the angle the views stand for
  void* plan_forward_ = nullptr;
  void* plan_inverse_ = nullptr;
};

}  // namespace tomo::fdk
