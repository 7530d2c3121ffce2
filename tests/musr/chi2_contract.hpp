// The musr::Chi2Evaluator contract, one suite for every backend: χ² and max-likelihood (value
// and gradient) at given parameters equal to the cpu reference (double ≤ 1e-9 relative, float
// ≤ 1e-5), on eq. (5) Monte-Carlo data and on a theory that uses every predefined function and
// FUNCTIONS operation. Instantiated in chi2_contract_test.cpp (cpu, gl-compute) and
// chi2_contract_gpu_test.cpp (cuda).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "compute/musr/fit_problem.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/simulator.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::musr::test {

// Every predefined THEORY function and every FUNCTIONS operation, on eq. (5) data.
inline std::string all_functions_msr() {
  return "every function\nFITPARAMETER\n"
         " 1 N0 200 1\n 2 A 0.2 0.01\n 3 lambda 0.3 0.01\n 4 phase 10 1\n 5 field 100 0.1\n 6 beta 1.4 0.1\n"
         " 7 sigma 0.25 0.01\n 8 gamma 2.0 0.1\n 9 frac 0.3 0.01\n 10 lamL 0.05 0.01\n 11 tshift 0.01 0.001\n"
         " 12 p0 0.01 0.001\n 13 p1 -0.002 0.001\n 14 p2 0.0003 0.0001\n 15 Bkg 1.0 0.01\n"
         "THEORY\n"
         "asymmetry 2\nsimplExpo 3 11\nTFieldCos map1 fun1\n+\n"
         "asymmetry fun2\ngenerExpo 3 6\nstatGssKT 7\nstatExpKT 10\n+\n"
         "asymmetry fun3\ncombiLGKT 10 7\nstrKT 7 6\nabragam 7 8\nbessel 4 fun1 11\n+\n"
         "asymmetry fun4\ninternFld 9 4 fun1 3 10\ninternBsl 9 4 fun1 3 10 11\n+\n"
         "polynom 11 12 13 14\nconst fun5\n"
         "FUNCTIONS\n"
         "fun1 = gamma_mu * par5\n"
         "fun2 = 0.05 * (cos(par9) + sin(par9) + tan(par9) + cosh(par9) - sinh(par9) + tanh(par9))\n"
         "fun3 = 0.02 * (acos(par9) + asin(par9) + atan(par9) + acosh(par8) + asinh(par9) + atanh(par9))\n"
         "fun4 = 0.01 * (exp(par9) + log(par5) + ln(par8) + sqrt(par7) + pow(par8, par6) - -par9 / 2)\n"
         "fun5 = 1.0 + 0.0 * PI\n"
         "RUN sim X PSI PSI-BIN\nfittype 0\nnorm 1\nbackgr.fit 15\nmap 4\nforward 1\ndata 105 2999\nt0 100\n"
         "fit 0 8\npacking 2\n"
         "COMMANDS\nMIGRAD\n";
}

struct Chi2Case {
  std::string name;
  FitData data;
  std::vector<double> params;
};

inline Chi2Case make_case(const std::string& which) {
  Eq5Config c;
  c.detectors = which == "all_functions" ? 1 : 3;
  c.bins = 3000;
  c.dt_us = 0.00390625;
  c.t0_bin = 100;
  c.first_good = 105;
  c.n0 = 500.0;
  c.seed = 5;
  const std::string text = which == "all_functions" ? all_functions_msr() : eq5_msr(c, "sim", which == "eq5_ml");
  const MsrFile msr = parse_msr(text, which + ".msr");
  const PsiBinFile data = simulate_eq5(c);
  Chi2Case out;
  out.name = which;
  out.data = prepare_fit(msr, [&](const MsrRun&) { return data; }).data;
  for (const auto& p : msr.params) out.params.push_back(p.value);
  return out;
}

class MusrChi2Contract : public tomo::test::BackendContract<Chi2Evaluator> {
 protected:
  void check(const std::string& which, bool single) {
    const Chi2Case c = make_case(which);
    auto& reg = BackendRegistry<Chi2Evaluator>::instance();
    auto ref = reg.create("cpu");
    ref->configure({});
    ref->upload(c.data);
    std::vector<double> gref(c.params.size());
    const double fref = ref->evaluate_with_gradient(c.params, gref);
    auto ev = reg.create(backend());
    ev->configure({0, single});
    ev->upload(c.data);
    std::vector<double> g(c.params.size());
    const double f0 = ev->evaluate(c.params);
    const double f = ev->evaluate_with_gradient(c.params, g);
    ev->synchronize();
    const double tol = single ? 1e-5 : 1e-9;
    EXPECT_NEAR(f, fref, tol * fref) << which;
    EXPECT_NEAR(f0, f, tol * fref) << which << ": value with and without gradient";
    double num = 0.0, den = 0.0;
    for (std::size_t i = 0; i < g.size(); ++i) {
      num += (g[i] - gref[i]) * (g[i] - gref[i]);
      den += gref[i] * gref[i];
    }
    EXPECT_LE(std::sqrt(num / den), single ? 1e-3 : 1e-7) << which << ": gradient";
    // No state kept between calls: other parameters, then the first ones again.
    auto p2 = c.params;
    for (auto& v : p2) v *= 1.01;
    EXPECT_NEAR(ev->evaluate(p2), ref->evaluate(p2), tol * ref->evaluate(p2)) << which;
    EXPECT_NEAR(ev->evaluate(c.params), fref, tol * fref) << which;
    EXPECT_FALSE(ev->describe().empty());
  }
};

TEST_P(MusrChi2Contract, Eq5Chi2MatchesCpu) { check("eq5", false); }
TEST_P(MusrChi2Contract, Eq5MaxLikelihoodMatchesCpu) { check("eq5_ml", false); }
TEST_P(MusrChi2Contract, EveryFunctionMatchesCpu) { check("all_functions", false); }
TEST_P(MusrChi2Contract, SinglePrecisionWithin1e5) {
  check("eq5", true);
  check("all_functions", true);
}

}  // namespace tomo::musr::test
