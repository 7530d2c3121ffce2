// PLS's scales (see PlsScale in pls.hpp): λ = ‖H b‖²/‖b‖² with b = Hᵀu (one forward, which CG
// reuses as its first), and the image level ᾱ from ‖u‖ and ‖b‖.
#include <cmath>
#include <cstdint>

#include "compute/core/log.hpp"
#include "compute/oat/pls.hpp"

namespace tomo::oat {

namespace {
double squared_norm(std::span<const double> a) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(a.size()); ++i) s += a[i] * a[i];
  return s;
}
}  // namespace

PlsScale pls_scale(Model& H, std::span<const double> u, std::span<const double> b, std::vector<double>& hb) {
  PlsScale s;
  hb.assign(u.size(), 0.0);
  const double bb = squared_norm(b);
  if (!(bb > 0)) return s;  // Hᵀu = 0: α = 0 is the answer, nothing to scale
  H.forward(b, hb);
  s.lambda = squared_norm(hb) / bb;
  s.alpha = squared_norm(u) / (std::sqrt(double(b.size()) * bb));
  log_debug("oat PLS: λ = ", s.lambda, " (curvature of the data term along Hᵀu), ᾱ = ", s.alpha);
  return s;
}

}  // namespace tomo::oat
