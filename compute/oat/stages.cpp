// H_srt, D and H_eir on the host in double, each with its exact transpose (kernel_math.hpp).
#include "compute/oat/stages.hpp"

#include <omp.h>

#include <algorithm>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/oat/params.hpp"

namespace tomo::oat {

namespace {
void require_size(std::size_t got, std::size_t want, const char* what) {
  if (got != want) throw Error(str_cat("oat stages: ", what, " has ", got, " values, expected ", want));
}
}  // namespace

InterpolationStages::InterpolationStages(const OatGeometry& g, const ModelOptions& o)
    : Q_(g.transducers.size()),
      K_(static_cast<std::size_t>(g.time.samples)),
      threads_(o.threads),
      c0_(g.c0_mm_per_us),
      t_min_(g.time.t_min_us),
      dt_(g.time.dt_us()),
      cD_(d_coefficient<double>(g.gruneisen, g.c0_mm_per_us, g.time.dt_us())),
      h_(patch_mm(g, o)),
      grid_(grid_params<double>(g)),
      frames_(shell_frames<double>(g)),
      taps_(g.eir.active() ? g.eir.taps : std::vector<double>{}) {}

int InterpolationStages::threads() const { return threads_ > 0 ? threads_ : omp_get_max_threads(); }

double InterpolationStages::radius(std::size_t m) const {
  return c0_ * (t_min_ + (static_cast<double>(m) - 1.0) * dt_);
}

void InterpolationStages::srt(std::span<const double> alpha, std::span<double> g) const {
  require_size(alpha.size(), voxels(), "α");
  require_size(g.size(), shell_samples(), "g");
  const std::size_t M = K_ + 2;
  const std::int64_t n = static_cast<std::int64_t>(Q_ * M);
#pragma omp parallel for num_threads(threads()) schedule(dynamic, 16)
  for (std::int64_t s = 0; s < n; ++s) {
    const std::size_t q = s / M, m = s % M;
    g[s] = srt_sample(frames_[q], grid_, alpha.data(), radius(m), h_);
  }
}

void InterpolationStages::srt_adjoint(std::span<const double> g, std::span<double> alpha) const {
  require_size(alpha.size(), voxels(), "α");
  require_size(g.size(), shell_samples(), "g");
  const int nt = threads();
  const std::size_t M = K_ + 2, N = voxels();
  std::vector<std::vector<double>> partial(nt);
  const std::int64_t n = static_cast<std::int64_t>(Q_ * M);
#pragma omp parallel num_threads(nt)
  {
    std::vector<double>& img = partial[omp_get_thread_num()];
    img.assign(N, 0.0);
    // A fixed deal of the samples to the threads (round robin by 16), so that each partial image,
    // and the sum of them in thread order below, is the same on every call with as many threads.
#pragma omp for schedule(static, 16)
    for (std::int64_t s = 0; s < n; ++s) {
      if (g[s] == 0.0) continue;
      const std::size_t q = s / M, m = s % M;
      srt_sample_adjoint(frames_[q], grid_, g[s], radius(m), h_, [&](int v, double w) { img[v] += w; });
    }
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (std::int64_t v = 0; v < static_cast<std::int64_t>(N); ++v) {
    double s = 0;
    for (int t = 0; t < nt; ++t) s += partial[t][v];
    alpha[v] = s;
  }
}

void InterpolationStages::d(std::span<const double> g, std::span<double> p) const {
  require_size(g.size(), shell_samples(), "g");
  require_size(p.size(), data_samples(), "p");
  const int K = static_cast<int>(K_);
  for (std::size_t q = 0; q < Q_; ++q)
    for (int k = 0; k < K; ++k) p[q * K_ + k] = d_sample(g.data() + q * (K_ + 2), k, t_min_, dt_, cD_);
}

void InterpolationStages::d_adjoint(std::span<const double> p, std::span<double> g) const {
  require_size(g.size(), shell_samples(), "g");
  require_size(p.size(), data_samples(), "p");
  const int K = static_cast<int>(K_);
  for (std::size_t q = 0; q < Q_; ++q)
    for (int m = 0; m < K + 2; ++m) g[q * (K_ + 2) + m] = d_adjoint_sample(p.data() + q * K_, K, m, t_min_, dt_, cD_);
}

void InterpolationStages::eir(std::span<const double> p, std::span<double> u) const {
  require_size(p.size(), data_samples(), "p");
  require_size(u.size(), data_samples(), "u");
  if (taps_.empty()) return (void)std::copy(p.begin(), p.end(), u.begin());
  const int K = static_cast<int>(K_), J = static_cast<int>(taps_.size());
  for (std::size_t q = 0; q < Q_; ++q)
    for (int k = 0; k < K; ++k) u[q * K_ + k] = eir_sample(p.data() + q * K_, K, taps_.data(), J, k);
}

void InterpolationStages::eir_adjoint(std::span<const double> u, std::span<double> p) const {
  require_size(p.size(), data_samples(), "p");
  require_size(u.size(), data_samples(), "u");
  if (taps_.empty()) return (void)std::copy(u.begin(), u.end(), p.begin());
  const int K = static_cast<int>(K_), J = static_cast<int>(taps_.size());
  for (std::size_t q = 0; q < Q_; ++q)
    for (int k = 0; k < K; ++k) p[q * K_ + k] = eir_adjoint_sample(u.data() + q * K_, K, taps_.data(), J, k);
}

void InterpolationStages::forward(std::span<const double> alpha, std::span<double> u) const {
  std::vector<double> g(shell_samples()), p(data_samples());
  srt(alpha, g);
  d(g, p);
  eir(p, u);
}

void InterpolationStages::adjoint(std::span<const double> u, std::span<double> alpha) const {
  std::vector<double> g(shell_samples()), p(data_samples());
  eir_adjoint(u, p);
  d_adjoint(p, g);
  srt_adjoint(g, alpha);
}

double InterpolationStages::patch_count() const {
  double n = 0;
  for (std::size_t q = 0; q < Q_; ++q)
    for (std::size_t m = 0; m < K_ + 2; ++m) {
      const ShellCap<double> c = shell_cap(frames_[q], radius(m), h_);
      for (int i = 0; i < c.n_theta; ++i) n += shell_ring(c, i).n_phi;
    }
  return n;
}

}  // namespace tomo::oat
