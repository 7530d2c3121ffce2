// Device text for `table` and `dawson` nodes (codegen_tables.hpp). The table readers repeat
// kt_lookup/kt_slope of compute/musr/kt_tables.cpp in double (x/dt by an IEEE division, so
// the cpu and the kernels pick the same interval); Dawson's integral repeats compute/musr/dawson.cpp.
#include "compute/musr/codegen_tables.hpp"

#include <cmath>

#include "compute/core/log.hpp"

namespace tomo::musr {
namespace {

// The lookup body on `v` (a pointer or an offset into `tabs`), n points, step dt, at double x.
// (`at`: the double literal suffix, "lf" in GLSL, whose locals are not const.)
std::string lookup_body(const std::string& at) {
  const std::string c = at.empty() ? "const " : "";
  return str_cat("  if (x < 0.0", at, ") return 0.0", at, ";\n  ", c, "double q = x / dt;\n  if (!(q < double(n - 1))) return V(n - 1);\n",
                 "  ", c, "int i = int(q);\n  return V(i) + (V(i + 1) - V(i)) * (q - double(i));\n");
}
std::string slope_body(const std::string& at) {
  const std::string c = at.empty() ? "const " : "";
  return str_cat("  if (x < 0.0", at, ") return 0.0", at, ";\n  ", c, "double q = x / dt;\n  if (!(q < double(n - 1))) return 0.0", at,
                 ";\n  ", c, "int i = int(q);\n  return (V(i + 1) - V(i)) / dt;\n");
}

}  // namespace

std::string cuda_table_helpers(const Dialect& d, int tables) {
  std::string s = str_cat("#define NT ", tables, "\n");
  s += "struct MuTab { long long off; int n, pad; double dt; };\n";
  s += "#define MU_TAB(s) tabs, tinfo[R.run * NT + (s)]\n";
  s += "#define V(k) v[k]\n";
  s += "__device__ __forceinline__ double mu_lookup(const double* __restrict__ v, int n, double dt, double x) {\n" + lookup_body("") + "}\n";
  s += "__device__ __forceinline__ double mu_slope(const double* __restrict__ v, int n, double dt, double x) {\n" + slope_body("") + "}\n";
  s += "#undef V\n";
  s += str_cat("__device__ __forceinline__ real mu_tab(const double* __restrict__ tabs, const MuTab& T, real x) {\n",
               "  return real(mu_lookup(tabs + T.off, T.n, T.dt, (double)x));\n}\n",
               "__device__ __forceinline__ real mu_tab_dx(const double* __restrict__ tabs, const MuTab& T, real x) {\n",
               "  return real(mu_slope(tabs + T.off, T.n, T.dt, (double)x));\n}\n",
               "__device__ __forceinline__ real mu_tab_da(const double* __restrict__ tabs, const MuTab& T, int j, real x) {\n",
               "  return real(mu_lookup(tabs + T.off + (long long)(1 + j) * T.n, T.n, T.dt, (double)x));\n}\n");
  (void)d;
  return s;
}

std::string glsl_table_helpers(const Dialect& d, int tables, int binding) {
  // std430: uint off, n; double dt (16 bytes); the values as doubles whatever `real` is.
  std::string s = str_cat("#define NT ", tables, "\n", "struct MuTab { uint off, n; double dt; };\n",
                          "layout(std430, binding = ", binding, ") readonly buffer MuTabs { MuTab tinfo[]; };\n",
                          "layout(std430, binding = ", binding + 1, ") readonly buffer MuTabValues { double tabs[]; };\n",
                          "#define MU_TAB(s) (run * NT + (s))\n");
  s += "#define V(k) tabs[v + uint(k)]\n";
  s += "double mu_lookup(uint v, int n, double dt, double x) {\n" + lookup_body("lf") + "}\n";
  s += "double mu_slope(uint v, int n, double dt, double x) {\n" + slope_body("lf") + "}\n";
  s += "#undef V\n";
  s += str_cat("real mu_tab(int s, real x) { MuTab T = tinfo[s]; return real(mu_lookup(T.off, int(T.n), T.dt, double(x))); }\n",
               "real mu_tab_dx(int s, real x) { MuTab T = tinfo[s]; return real(mu_slope(T.off, int(T.n), T.dt, double(x))); }\n",
               "real mu_tab_da(int s, int j, real x) {\n  MuTab T = tinfo[s];\n",
               "  return real(mu_lookup(T.off + uint(1 + j) * T.n, int(T.n), T.dt, double(x)));\n}\n");
  (void)d;
  return s;
}

std::string dawson_source(const Dialect& d) {
  auto L = [&](double v) { return real_literal(v, d); };
  const std::string R = d.real, q = d.glsl() ? "" : "__device__ __forceinline__ ";
  const std::string ex = d.kind == Dialect::Kind::glsl_double ? "mu_exp" : "exp";
  const std::string ab = d.glsl() ? "abs" : "fabs";
  std::string s = str_cat(q, R, " mu_dawson(", R, " x) {\n  const ", R, " ax = ", ab, "(x);\n");
  if (d.glsl()) s = str_cat(R, " mu_dawson(", R, " x) {\n  ", R, " ax = abs(x);\n");
  const std::string c = d.glsl() ? "" : "const ";
  s += str_cat("  if (ax < ", L(0.2), ") {\n    ", c, R, " x2 = x * x;\n    ", R, " term = x, sum = x;\n",
               "    for (int k = 1; k < 12; ++k) {\n      term *= ", L(-2), " * x2 / (", L(2), " * ", R, "(k) + ", L(1), ");\n",
               "      sum += term;\n    }\n    return sum;\n  }\n");
  s += str_cat("  if (ax > ", L(50), ") {\n    ", c, R, " y = ", L(1), " / (x * x);\n    return ", L(0.5), " / x * (", L(1), " + y * (",
               L(0.5), " + y * (", L(0.75), " + y * (", L(1.875), " + y * ", L(6.5625), "))));\n  }\n");
  s += str_cat("  ", c, R, " n0 = ", L(2), " * ", d.glsl() ? "roundEven" : "rint", "(", L(0.5), " * ax / ", L(0.25), ");\n");
  s += str_cat("  ", c, R, " xp = ax - n0 * ", L(0.25), ";\n  ", R, " sum = ", L(0), ";\n");
  s += str_cat("  for (int m = 0; m < 28; ++m) {\n    ", c, R, " n = ", L(2), " * ", R, "(m) + ", L(1), ";\n",
               "    ", c, R, " up = xp - n * ", L(0.25), ", dn = xp + n * ", L(0.25), ";\n",
               "    sum += ", ex, "(-up * up) / (n0 + n) + ", ex, "(-dn * dn) / (n0 - n);\n  }\n");
  s += str_cat("  ", c, R, " f = sum * ", L(1.0 / std::sqrt(kPi)), ";\n  return x < ", L(0), " ? -f : f;\n}\n");
  return s;
}

}  // namespace tomo::musr
