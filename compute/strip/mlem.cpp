// ML-EM driver (seed 000 eq. 5) and image metrics.
#include "compute/strip/mlem.hpp"

#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::strip {

std::vector<double> run_mlem(ListModeProjector& op, std::size_t pixels, int iterations,
                             const std::function<void(int, const std::vector<double>&)>& after_iteration) {
  std::vector<double> rho(pixels, 1.0);  // flat start: every pixel may emit
  op.set_image(rho);
  for (int t = 1; t <= iterations; ++t) {
    op.iterate();
    if (after_iteration || t == iterations) rho = op.image();
    for (double v : rho)
      if (!std::isfinite(v)) throw Error(str_cat("strip ML-EM: non-finite pixel after iteration ", t));
    if (after_iteration) after_iteration(t, rho);
  }
  if (iterations <= 0) rho = op.image();
  return rho;
}

std::vector<double> rho_from_rho_prime(std::span<const double> rho_prime, std::span<const double> s) {
  std::vector<double> out(rho_prime.size(), 0.0);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = s[i] > 0 ? rho_prime[i] / s[i] : 0.0;
  return out;
}

double correlation(std::span<const double> a, std::span<const double> b) {
  const std::size_t n = a.size();
  if (n == 0 || b.size() != n) return 0.0;
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < n; ++i) ma += a[i], mb += b[i];
  ma /= n, mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
}

double nrmse_scaled(std::span<const double> a, std::span<const double> ref) {
  double ar = 0, aa = 0, rr = 0;
  for (std::size_t i = 0; i < a.size(); ++i) ar += a[i] * ref[i], aa += a[i] * a[i], rr += ref[i] * ref[i];
  if (!(rr > 0)) return 0.0;
  const double k = aa > 0 ? ar / aa : 0.0;
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i) e += (k * a[i] - ref[i]) * (k * a[i] - ref[i]);
  return std::sqrt(e / rr);
}

double relative_l2(std::span<const double> a, std::span<const double> b) {
  double d = 0, n = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) d += (a[i] - b[i]) * (a[i] - b[i]), n += b[i] * b[i];
  if (a.size() != b.size()) return INFINITY;
  return n > 0 ? std::sqrt(d / n) : std::sqrt(d);
}

}  // namespace tomo::strip
