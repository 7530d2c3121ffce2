// The `cpu` backend of H_sph (double): the phase e^{−ĵ2πf_l d/c₀} of every (face point, voxel)
// pair by recurrence over the equally spaced f_l (one complex multiply per frequency), anchored
// afresh by std::polar every kAnchor frequencies so the rounding never grows past ~1e-14.
// Forward: OpenMP over transducers; adjoint: OpenMP over voxels; both honour SphShare.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/sph_model.hpp"
#include "compute/oat/sph_spectrum.hpp"

namespace tomo::oat {

namespace {

constexpr int kAnchor = 32;
using cd = std::complex<double>;

class CpuSphModel final : public SphModel {
 public:
  std::string describe() const override { return str_cat("cpu: ", threads(), " OpenMP threads, double (H_sph)"); }

  void configure(const OatGeometry& g, const SphOptions& o) override {
    g.validate("oat cpu H_sph");
    o.setup.validate(g, "oat cpu H_sph");
    o_ = o;
    voxels_ = voxel_centres(g.grid);
    points_ = face_points(g, o.setup);
    weights_ = sph_weights(g, o.setup);
    Q_ = g.transducer_count();
    L_ = o.setup.frequencies;
    P_ = o.setup.face_points();
    const double k = 2 * std::numbers::pi / g.c0_mm_per_us;
    k0_ = k * o.setup.f_mhz(g, 0);
    dk_ = k * o.setup.df_mhz(g);
    v0_ = std::clamp<std::int64_t>(o.share.voxel_begin, 0, std::int64_t(voxels_.size()));
    v1_ = o.share.voxel_end < 0 ? std::int64_t(voxels_.size()) : std::clamp(o.share.voxel_end, v0_, std::int64_t(voxels_.size()));
    q0_ = std::clamp(o.share.transducer_begin, 0, Q_);
    q1_ = o.share.transducer_end < 0 ? Q_ : std::clamp(o.share.transducer_end, q0_, Q_);
    configured_ = true;
  }

  void forward(std::span<const double> alpha, std::span<cd> u) override {
    check(alpha.size(), u.size());
#pragma omp parallel for schedule(dynamic) num_threads(threads())
    for (int q = 0; q < Q_; ++q) {
      std::vector<cd> acc(L_, 0.0);
      for (int p = 0; p < P_; ++p) {
        const Vec3d& s = points_[std::size_t(q) * P_ + p];
        for (std::int64_t n = v0_; n < v1_; ++n)
          if (alpha[n] != 0) visit(s, voxels_[n], [&](int l, cd e) { acc[l] += alpha[n] * e; });
      }
      for (int l = 0; l < L_; ++l) u[std::size_t(q) * L_ + l] = weights_[l] * acc[l];
    }
  }

  void adjoint(std::span<const cd> u, std::span<double> alpha) override {
    check(alpha.size(), u.size());
    // w = conj(c_l)·ũ[q,l]; α′ₙ = Σ Re{w·conj(e^{−ĵθ}/d)}.
    std::vector<cd> w(u.size());
    for (std::size_t i = 0; i < u.size(); ++i) w[i] = std::conj(weights_[i % L_]) * u[i];
#pragma omp parallel for schedule(static) num_threads(threads())
    for (std::int64_t n = 0; n < std::int64_t(voxels_.size()); ++n) {
      double a = 0;
      for (int q = q0_; q < q1_; ++q)
        for (int p = 0; p < P_; ++p)
          visit(points_[std::size_t(q) * P_ + p], voxels_[n],
                [&, wq = w.data() + std::size_t(q) * L_](int l, cd e) {
                  a += wq[l].real() * e.real() + wq[l].imag() * e.imag();  // Re{w·conj(e)}
                });
      alpha[n] = a;
    }
  }

 private:
  int threads() const { return o_.threads > 0 ? o_.threads : omp_get_max_threads(); }
  void check(std::size_t voxels, std::size_t samples) const {
    if (!configured_) throw Error("oat cpu H_sph: configure() was not called");
    if (voxels != voxels_.size() || samples != std::size_t(Q_) * L_)
      throw Error(str_cat("oat cpu H_sph: ", voxels, " voxels and ", samples, " samples, expected ", voxels_.size(),
                          " and ", std::size_t(Q_) * L_));
  }
  // f(l, e^{−ĵk_l d}/d) for every frequency l of the pair (face point s, voxel r).
  template <class F>
  void visit(const Vec3d& s, const Vec3d& r, F&& f) const {
    const double d = std::hypot(s[0] - r[0], s[1] - r[1], s[2] - r[2]);
    const double sr = std::cos(dk_ * d), si = -std::sin(dk_ * d);
    double er = 0, ei = 0;
    for (int l = 0; l < L_; ++l) {
      if (l % kAnchor == 0) {
        const double a = (k0_ + l * dk_) * d;
        er = std::cos(a) / d, ei = -std::sin(a) / d;
      } else {  // e·step written out: std::complex's operator* checks for NaN/∞ (a libgcc call)
        const double r = er * sr - ei * si;
        ei = er * si + ei * sr;
        er = r;
      }
      f(l, cd(er, ei));
    }
  }

  SphOptions o_;
  std::vector<Vec3d> voxels_, points_;
  std::vector<cd> weights_;
  int Q_ = 0, L_ = 0, P_ = 1, q0_ = 0, q1_ = 0;
  std::int64_t v0_ = 0, v1_ = 0;
  double k0_ = 0, dk_ = 0;
  bool configured_ = false;
};

const BackendRegistrar<SphModel> kRegisterCpuSph(
    {"cpu", kPriorityCpu, nullptr, [] { return std::make_unique<CpuSphModel>(); }});

}  // namespace

}  // namespace tomo::oat
