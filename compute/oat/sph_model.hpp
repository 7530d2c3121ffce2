// The spherical-voxel model H_sph of [Wang2013] in the temporal-frequency domain: one
// implementation per backend through tomo::BackendRegistry<SphModel>, complex data ũ[q·L + l].
// ũ[q,l] = p̃₀(f_l)·Σₙ αₙ·h̃_q(rₙ, f_l)/S_q and its exact transpose α′ₙ = Σ Re{ũ·conj(p̃₀h̃/S)}.
#pragma once
#include <complex>
#include <cstddef>
#include <span>
#include <string>

#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

// What H_sph needs beyond the geometry: the frequency samples f_l = (first_bin + l)·Δf with
// Δf = fs/fft_length (the bins of the zero-padded FFT of the time data) and the transducers'
// faces (flat rectangles width × height, integrated by an n × n midpoint rule; 0 × 0 = point).
struct SphSetup {
  int fft_length = 0;    // N ≥ K: zero-padded FFT length of a trace
  int first_bin = 1;     // f_0 = first_bin·Δf (bin 0 carries nothing: p̃₀(0) = 0)
  int frequencies = 0;   // L
  double aperture_width_mm = 0, aperture_height_mm = 0;
  int aperture_points = 0;  // n: n × n sub-elements of the face (0: from the size; 1 for a point)

  double df_mhz(const OatGeometry& g) const { return g.time.fs_mhz / fft_length; }
  double f_mhz(const OatGeometry& g, int l) const { return (first_bin + l) * df_mhz(g); }
  bool point() const { return aperture_width_mm <= 0 || aperture_height_mm <= 0; }
  int face_points() const { return point() ? 1 : aperture_points * aperture_points; }
  std::size_t data_size(const OatGeometry& g) const { return g.transducers.size() * std::size_t(frequencies); }
  // Defaults from the geometry where a field is 0: N = the power of two ≥ 2K, L up to
  // f_max_mhz (0: min(fs/2, c₀/Δs), just below the first zero of the voxel's j₁ at 1.43·c₀/Δs),
  // n from the face size (sub-element ≤ a quarter wavelength at the top frequency, ≤ 16).
  static SphSetup resolve(const OatGeometry& g, SphSetup s, double f_max_mhz);
  // InputError (prefixed with `where`) for sizes that do not fit the geometry.
  void validate(const OatGeometry& g, const std::string& where) const;
};

// The part of the sums a rank computes (several GPUs): forward over voxels [voxel_begin,
// voxel_end) into all of ũ, adjoint over transducers [transducer_begin, transducer_end) into
// all of α. −1 = to the end. The partial results of the ranks add up to the whole.
struct SphShare {
  std::int64_t voxel_begin = 0, voxel_end = -1;
  int transducer_begin = 0, transducer_end = -1;
};

struct SphOptions {
  SphSetup setup;
  SphShare share;
  int threads = 0;        // cpu: OpenMP threads, 0 = all (cuda: runtime_options().cuda_device)
};

class SphModel {
 public:
  virtual ~SphModel() = default;
  virtual std::string describe() const = 0;
  // Must come first: positions of the voxels and face points, p̃₀(f_l) (with the EIR).
  virtual void configure(const OatGeometry& geometry, const SphOptions& options) = 0;
  // ũ = H_sph α: α has grid.count() voxels, ũ has Q·L complex samples.
  virtual void forward(std::span<const double> alpha, std::span<std::complex<double>> data) = 0;
  // α = H_sphᵀ ũ = Re(H_sphᴴ ũ), the exact transpose of forward() as a map ℝᴺ → ℂ^{QL} = ℝ^{2QL}.
  virtual void adjoint(std::span<const std::complex<double>> data, std::span<double> alpha) = 0;
  virtual void synchronize() {}
};

// H_sph as a real oat::Model on interleaved (re, im) data of 2·Q·L doubles, so the PLS of
// pls.hpp runs on it unchanged: the real inner product of interleaved vectors is Re⟨·,·⟩, and
// the normal equations become Re(HᴴH)α = Re(Hᴴũ) (complex residual, real image).
class SphAsModel final : public Model {
 public:
  explicit SphAsModel(SphModel& sph) : sph_(sph) {}
  std::string describe() const override { return sph_.describe(); }
  void configure(const OatGeometry&, const ModelOptions&) override {}
  void forward(std::span<const double> alpha, std::span<double> data) override;
  void adjoint(std::span<const double> data, std::span<double> alpha) override;
  void synchronize() override { sph_.synchronize(); }

 private:
  SphModel& sph_;
};

std::span<const double> as_real(std::span<const std::complex<double>> c);
std::span<double> as_real(std::span<std::complex<double>> c);

}  // namespace tomo::oat
