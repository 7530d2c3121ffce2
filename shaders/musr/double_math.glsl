// Double-precision elementary functions (GLSL has none for double): argument reduction and
// series truncated below 1e-16 relative; J0/J1 by their power series (|x| < 12) and Hankel's
// asymptotic expansion (|x| ≥ 12, best truncation: ~1e-10 absolute). Written for the gl-compute χ² in double.
const double MU_LN2_HI = 0.693147180369123816490lf, MU_LN2_LO = 1.90821492927058770002e-10lf;
const double MU_PIO2_1 = 1.57079632673412561417lf, MU_PIO2_2 = 6.07710050650619224932e-11lf;
const double MU_PI = 3.14159265358979311600lf;
double mu_exp(double x) {
  if (x > 709.0lf) return packDouble2x32(uvec2(0u, 0x7ff00000u));
  if (x < -745.0lf) return 0.0lf;
  double k = floor(x / MU_LN2_HI + 0.5lf);
  double r = (x - k * MU_LN2_HI) - k * MU_LN2_LO;
  double s = 1.0lf, term = 1.0lf;
  for (int i = 1; i <= 14; ++i) { term *= r / double(i); s += term; }
  int ki = int(k);
  // ldexp in two steps keeps 2^k representable near the ends of the range.
  return ldexp(ldexp(s, ki / 2), ki - ki / 2);
}
double mu_log(double x) {
  if (!(x > 0.0lf)) return x == 0.0lf ? -packDouble2x32(uvec2(0u, 0x7ff00000u)) : packDouble2x32(uvec2(0u, 0x7ff80000u));
  int e;
  double m = frexp(x, e);  // x = m·2^e, m in [0.5, 1)
  if (m < 0.70710678118654752440lf) { m *= 2.0lf; e -= 1; }
  double f = (m - 1.0lf) / (m + 1.0lf), f2 = f * f, s = 0.0lf, p = f;
  for (int i = 0; i < 14; ++i) { s += p / double(2 * i + 1); p *= f2; }
  return 2.0lf * s + double(e) * MU_LN2_HI + double(e) * MU_LN2_LO;
}
// sin and cos of r in [−π/4, π/4].
double mu_sin_k(double r) {
  double r2 = r * r, term = r, s = r;
  for (int i = 1; i <= 10; ++i) { term *= -r2 / double((2 * i) * (2 * i + 1)); s += term; }
  return s;
}
double mu_cos_k(double r) {
  double r2 = r * r, term = 1.0lf, s = 1.0lf;
  for (int i = 1; i <= 10; ++i) { term *= -r2 / double((2 * i - 1) * (2 * i)); s += term; }
  return s;
}
// x = k·π/2 + r, n = k mod 4 (Cody–Waite: π/2 in two parts, k·part 1 exact for |x| < 1e9).
double mu_reduce(double x, out int n) {
  double k = floor(x / MU_PIO2_1 + 0.5lf);
  n = int(mod(k, 4.0lf));
  return (x - k * MU_PIO2_1) - k * MU_PIO2_2;
}
double mu_sin(double x) {
  int n;
  double r = mu_reduce(x, n);
  return n == 0 ? mu_sin_k(r) : n == 1 ? mu_cos_k(r) : n == 2 ? -mu_sin_k(r) : -mu_cos_k(r);
}
double mu_cos(double x) {
  int n;
  double r = mu_reduce(x, n);
  return n == 0 ? mu_cos_k(r) : n == 1 ? -mu_sin_k(r) : n == 2 ? -mu_cos_k(r) : mu_sin_k(r);
}
double mu_tan(double x) { return mu_sin(x) / mu_cos(x); }
double mu_sinh(double x) {
  if (abs(x) < 0.5lf) {  // series: no cancellation
    double x2 = x * x, term = x, s = x;
    for (int i = 1; i <= 9; ++i) { term *= x2 / double((2 * i) * (2 * i + 1)); s += term; }
    return s;
  }
  double e = mu_exp(x);
  return 0.5lf * (e - 1.0lf / e);
}
double mu_cosh(double x) { double e = mu_exp(x); return 0.5lf * (e + 1.0lf / e); }
double mu_tanh(double x) {
  if (abs(x) > 20.0lf) return sign(x);
  if (abs(x) < 0.5lf) return mu_sinh(x) / mu_cosh(x);
  double e = mu_exp(2.0lf * x);
  return (e - 1.0lf) / (e + 1.0lf);
}
double mu_atan(double x) {
  double ax = abs(x), off = 0.0lf;
  bool inv = ax > 1.0lf;
  if (inv) ax = 1.0lf / ax;
  if (ax > 0.26794919243112270647lf) {  // tan(π/12): atan(a) = π/6 + atan((a√3 − 1)/(a + √3))
    ax = (ax * 1.73205080756887729353lf - 1.0lf) / (ax + 1.73205080756887729353lf);
    off = MU_PI / 6.0lf;
  }
  double a2 = ax * ax, p = ax, s = 0.0lf;
  for (int i = 0; i < 16; ++i) { s += (i % 2 == 0 ? p : -p) / double(2 * i + 1); p *= a2; }
  double r = off + s;
  if (inv) r = 0.5lf * MU_PI - r;
  return x < 0.0lf ? -r : r;
}
double mu_asin(double x) { return abs(x) == 1.0lf ? sign(x) * 0.5lf * MU_PI : mu_atan(x / sqrt((1.0lf - x) * (1.0lf + x))); }
double mu_acos(double x) { return x == -1.0lf ? MU_PI : 2.0lf * mu_atan(sqrt((1.0lf - x) / (1.0lf + x))); }
double mu_asinh(double x) {
  double r = mu_log(abs(x) + sqrt(x * x + 1.0lf));
  return x < 0.0lf ? -r : r;
}
double mu_acosh(double x) { return mu_log(x + sqrt(x * x - 1.0lf)); }
double mu_atanh(double x) { return 0.5lf * mu_log((1.0lf + x) / (1.0lf - x)); }
double mu_pow(double a, double b) {
  if (a > 0.0lf) return mu_exp(b * mu_log(a));
  if (a == 0.0lf) return b > 0.0lf ? 0.0lf : (b == 0.0lf ? 1.0lf : packDouble2x32(uvec2(0u, 0x7ff00000u)));
  if (b != floor(b)) return packDouble2x32(uvec2(0u, 0x7ff80000u));
  double m = mu_exp(b * mu_log(-a));
  return mod(b, 2.0lf) == 0.0lf ? m : -m;
}
double mu_pow_da(double a, double b) { return b == 0.0lf ? 0.0lf : b * mu_pow(a, b - 1.0lf); }
double mu_log10abs(double a) { return mu_log(abs(a)) * 0.43429448190325182765lf; }
double mu_lnabs(double a) { return mu_log(abs(a)); }
double mu_sqrtabs(double a) { return sqrt(abs(a)); }
// J_n (n = 0, 1): Σ (−1)^k (x/2)^(2k+n) / (k!(k+n)!) for |x| < 12, else Hankel's expansion
// J_n ≈ √(2/(πx)) (P cos ω − Q sin ω), ω = x − nπ/2 − π/4 (A&S 9.2.5, 9.2.9, 9.2.10).
double mu_jn(double x, int n) {
  double ax = abs(x), r;
  if (ax < 12.0lf) {
    double h = 0.5lf * ax, h2 = h * h, term = n == 0 ? 1.0lf : h, s = term;
    for (int k = 1; k <= 40; ++k) { term *= -h2 / double(k * (k + n)); s += term; }
    r = s;
  } else {
    // Terms shrink until k ≈ 2x; stop at the smallest (the expansion's best truncation).
    double mu = 4.0lf * double(n * n), p = 0.0lf, q = 0.0lf, a = 1.0lf, prev = 2.0lf;
    for (int k = 0; k <= 30; ++k) {
      if (k > 0) a *= (mu - double((2 * k - 1) * (2 * k - 1))) / (double(k) * 8.0lf * ax);
      if (abs(a) > prev) break;
      prev = abs(a);
      int phase = k % 4;  // P = a0 − a2 + a4 − …, Q = a1 − a3 + …
      if (phase == 0) p += a; else if (phase == 2) p -= a; else if (phase == 1) q += a; else q -= a;
    }
    double w = ax - (0.5lf * double(n) + 0.25lf) * MU_PI;
    r = sqrt(2.0lf / (MU_PI * ax)) * (p * mu_cos(w) - q * mu_sin(w));
  }
  return (n == 1 && x < 0.0lf) ? -r : r;
}
double mu_j0(double x) { return mu_jn(x, 0); }
double mu_j1(double x) { return mu_jn(x, 1); }
