// 8-point Gauss–Legendre quadrature on [a, b], for the native built-ins' tables (exact for
// polynomials of degree 15; callers split their intervals where the integrand is not smooth).
#pragma once

namespace tomo::musr {

template <class F>
double gauss_legendre8(const F& f, double a, double b) {
  // Nodes and weights on [−1, 1] (symmetric halves).
  constexpr double kNode[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363};
  constexpr double kWeight[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763};
  const double m = 0.5 * (a + b), r = 0.5 * (b - a);
  double s = 0.0;
  for (int k = 0; k < 4; ++k) s += kWeight[k] * (f(m - r * kNode[k]) + f(m + r * kNode[k]));
  return r * s;
}

}  // namespace tomo::musr
