// Dawson's integral F(x) = e^(−x²)∫₀^x e^(s²) ds (skewedGss): a Maclaurin series near 0, the
// asymptotic series far out, and in between the sampling sum F(x) ≈ π^(−½) Σ_{n odd}
// e^(−(x'−nh)²)/(n + n₀) about the even n₀ nearest x/h (x' = x − n₀h), whose error is of the
// order e^(−(π/2h)²) (h = 0.25: below 1e-17).
#include <cmath>

#include "compute/musr/expression.hpp"

namespace tomo::musr {

double dawson(double x) {
  const double ax = std::fabs(x);
  if (!(ax == ax)) return x;  // NaN
  if (ax < 0.2) {
    // F(x) = Σ (−2)^k x^(2k+1) / (1·3·…·(2k+1)); 12 terms reach 1e-19 at x = 0.2.
    const double x2 = x * x;
    double term = x, sum = x;
    for (int k = 1; k < 12; ++k) {
      term *= -2.0 * x2 / (2.0 * k + 1.0);
      sum += term;
    }
    return sum;
  }
  if (ax > 50.0) {
    // F(x) ~ 1/(2x)·(1 + 1/(2x²) + 3/(4x⁴) + 15/(8x⁶) + 105/(16x⁸))
    const double y = 1.0 / (x * x);
    return 0.5 / x * (1.0 + y * (0.5 + y * (0.75 + y * (1.875 + y * 6.5625))));
  }
  constexpr double h = 0.25;
  constexpr int kTerms = 28;  // n = ±1, ±3, …: e^(−(27h)²) < 1e-19
  const double n0 = 2.0 * std::nearbyint(0.5 * ax / h);
  const double xp = ax - n0 * h;
    double sum = 0.0;
  for (int m = 0; m < kTerms; ++m) {
    const double n = 2.0 * m + 1.0;
    const double e_plus = std::exp(-(xp - n * h) * (xp - n * h)), e_minus = std::exp(-(xp + n * h) * (xp + n * h));
    sum += e_plus / (n0 + n) + e_minus / (n0 - n);
  }
  const double f = sum * (1.0 / std::sqrt(kPi));
  return x < 0 ? -f : f;
}

}  // namespace tomo::musr
