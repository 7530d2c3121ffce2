// Comparison measures (see metrics.hpp), written once as templates over float and double.
#include "compute/core/metrics.hpp"

#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo {
namespace {

template <class T>
void check_sizes(const char* what, std::span<const T> a, std::span<const T> b) {
  if (a.size() != b.size()) throw Error(str_cat(what, ": sizes differ (", a.size(), " vs ", b.size(), ")"));
}

template <class T>
double relative_l2_of(std::span<const T> a, std::span<const T> ref) {
  check_sizes("relative_l2", a, ref);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = double(a[i]) - double(ref[i]);
    num += d * d;
    den += double(ref[i]) * double(ref[i]);
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

template <class T>
double nrmse_of(std::span<const T> a, std::span<const T> ref) {
  check_sizes("nrmse", a, ref);
  double ar = 0, aa = 0, rr = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = a[i], r = ref[i];
    ar += x * r, aa += x * x, rr += r * r;
  }
  if (!(rr > 0)) return 0.0;
  const double k = aa > 0 ? ar / aa : 0.0;
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = a[i], r = ref[i];
    e += (k * x - r) * (k * x - r);
  }
  return std::sqrt(e / rr);
}

template <class T>
double correlation_of(std::span<const T> a, std::span<const T> b) {
  check_sizes("correlation", a, b);
  const std::size_t n = a.size();
  if (n == 0) return 0.0;
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < n; ++i) ma += a[i], mb += b[i];
  ma /= n, mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = a[i], y = b[i];
    sab += (x - ma) * (y - mb);
    saa += (x - ma) * (x - ma);
    sbb += (y - mb) * (y - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
}

}  // namespace

double relative_l2(std::span<const float> a, std::span<const float> ref) { return relative_l2_of(a, ref); }
double relative_l2(std::span<const double> a, std::span<const double> ref) { return relative_l2_of(a, ref); }
double rmse(std::span<const double> a, std::span<const double> ref) {
  check_sizes("rmse", a, ref);
  if (a.empty()) return 0.0;
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - ref[i]) * (a[i] - ref[i]);
  return std::sqrt(s / static_cast<double>(a.size()));
}
double nrmse(std::span<const float> a, std::span<const float> ref) { return nrmse_of(a, ref); }
double nrmse(std::span<const double> a, std::span<const double> ref) { return nrmse_of(a, ref); }
double correlation(std::span<const float> a, std::span<const float> b) { return correlation_of(a, b); }
double correlation(std::span<const double> a, std::span<const double> b) { return correlation_of(a, b); }

}  // namespace tomo
