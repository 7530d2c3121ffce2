// The three stages of H_int = H_eir·D·H_srt and their transposes on the host in double (the cpu
// backend, the stage-wise adjoint tests and the bench's cpu reference at any thread count).
#pragma once
#include <span>
#include <vector>

#include "compute/oat/geometry.hpp"
#include "compute/oat/kernel_math.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

class InterpolationStages {
 public:
  // options.threads: OpenMP threads (0 = all); options.patch_factor sets the patch edge.
  InterpolationStages(const OatGeometry& geometry, const ModelOptions& options);

  std::size_t voxels() const { return static_cast<std::size_t>(grid_.nx) * grid_.ny * grid_.nz; }
  std::size_t shell_samples() const { return Q_ * (K_ + 2); }  // g: Q × (K + 2), k = −1..K
  std::size_t data_samples() const { return Q_ * K_; }

  // g = H_srt α;  α = H_srtᵀ g.
  void srt(std::span<const double> alpha, std::span<double> g) const;
  void srt_adjoint(std::span<const double> g, std::span<double> alpha) const;
  // p = D g;  g = Dᵀ p.
  void d(std::span<const double> g, std::span<double> p) const;
  void d_adjoint(std::span<const double> p, std::span<double> g) const;
  // u = H_eir p;  p = H_eirᵀ u (identity copies without an EIR).
  void eir(std::span<const double> p, std::span<double> u) const;
  void eir_adjoint(std::span<const double> u, std::span<double> p) const;

  void forward(std::span<const double> alpha, std::span<double> u) const;
  void adjoint(std::span<const double> u, std::span<double> alpha) const;

  // Number of shell patches H_srt visits (the work of one forward, for the bench).
  double patch_count() const;

 private:
  int threads() const;
  double radius(std::size_t m) const;  // shell radius c₀t of g's sample m (k = m − 1)

  std::size_t Q_ = 0, K_ = 0;
  int threads_ = 0;
  double c0_ = 0, t_min_ = 0, dt_ = 0, cD_ = 0, h_ = 0;
  GridParams<double> grid_{};
  std::vector<ShellFrame<double>> frames_;
  std::vector<double> taps_;
};

}  // namespace tomo::oat
