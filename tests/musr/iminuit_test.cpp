// Our fit against Minuit2 (Debian's python3-iminuit) on the same χ²: the test writes the
// fitted bins as .npy and a Python script that builds the χ² of eq. (5) with numpy (its own
// model code) and runs MIGRAD + HESSE; values must agree within 1e-3 of an error.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "compute/core/registry.hpp"
#include "compute/io/npy.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/minimizer.hpp"
#include "compute/musr/simulator.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::musr {
namespace {

constexpr const char* kScript = R"PY(
import json, sys
import numpy as np
from iminuit import Minuit
d = np.load(sys.argv[1]); start = json.load(open(sys.argv[2]))
run, t, y, s = d[:, 0].astype(int), d[:, 1], d[:, 2], d[:, 3]
tau, gmu = 2.1969811, 0.01355388094
nd = int(run.max()) + 1
def chi2(*p):
    sigma, field = p[0], p[1]
    total = 0.0
    for j in range(nd):
        m = run == j
        n0, a, ph, bkg = p[2 + 4 * j: 6 + 4 * j]
        tt = t[m]
        th = n0 * np.exp(-tt / tau) * (1 + a * np.exp(-0.5 * (sigma * tt) ** 2)
             * np.cos(ph * np.pi / 180 + 2 * np.pi * gmu * field * tt)) + bkg
        total += np.sum(((y[m] - th) / s[m]) ** 2)
    return total
m = Minuit(chi2, *start["values"], name=start["names"])
m.errordef = Minuit.LEAST_SQUARES
for n, e in zip(start["names"], start["steps"]):
    m.errors[n] = e
m.strategy = 1
m.tol = 1e-6
m.migrad(ncall=100000)
m.hesse()
out = {"valid": bool(m.valid), "fval": m.fval, "values": list(m.values), "errors": list(m.errors)}
if len(sys.argv) > 3:
    m.minos()
    out["minos"] = [[m.merrors[n].lower, m.merrors[n].upper] for n in start["names"]]
print(json.dumps(out))
)PY";

struct Compared {
  FitResult ours;
  nlohmann::json minuit;
};

// Fits eq. (5) data with our minimiser and with Minuit2 on the same bins.
Compared fit_both(Eq5Config c, bool with_minos) {
  const MsrFile msr = parse_msr(eq5_msr(c, "sim"), "sim.msr");
  const PsiBinFile data = simulate_eq5(c);
  const FitSetup setup = prepare_fit(msr, [&](const MsrRun&) { return data; });
  auto ev = BackendRegistry<Chi2Evaluator>::instance().create("cpu");
  ev->configure({});
  ev->upload(setup.data);
  Compared out;
  out.ours = run_fit(*ev, msr, setup.used, setup.data.statistic);
  if (with_minos) minos(*ev, out.ours);
  test::TempDir tmp("musr-iminuit");
  std::vector<double> rows;
  for (std::size_t j = 0; j < setup.data.runs.size(); ++j) {
    const auto& rb = setup.data.runs[j];
    for (std::size_t k = 0; k < rb.t.size(); ++k)
      for (double v : {static_cast<double>(j), rb.t[k], rb.y[k], rb.sigma[k]}) rows.push_back(v);
  }
  const std::array<std::size_t, 2> shape{rows.size() / 4, 4};
  write_npy(tmp.dir / "bins.npy", rows, shape);
  nlohmann::json start;
  for (const auto& p : msr.params) {
    start["names"].push_back(p.name);
    start["values"].push_back(p.value);
    start["steps"].push_back(p.step);
  }
  std::ofstream(tmp.dir / "start.json") << start.dump();
  std::ofstream(tmp.dir / "fit.py") << kScript;
  const std::string cmd = "/usr/bin/python3 " + (tmp.dir / "fit.py").string() + " " + (tmp.dir / "bins.npy").string() +
                          " " + (tmp.dir / "start.json").string() + (with_minos ? " minos" : "");
  std::string text;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed");
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe)) text += buf;
  if (::pclose(pipe) != 0) throw std::runtime_error("python3-iminuit (Debian, /usr/bin/python3) is needed: " + text);
  out.minuit = nlohmann::json::parse(text);
  return out;
}

// The precession asymmetry of eq. (5) at 120 G sampled at 1/256 µs, as both tests fit it.
Eq5Config precession(int detectors, int bins, int t0_bin, double n0, double fit_end_us, unsigned seed) {
  Eq5Config c;
  c.detectors = detectors;
  c.bins = bins;
  c.dt_us = 0.00390625;
  c.t0_bin = t0_bin;
  c.first_good = t0_bin + 5;
  c.n0 = n0;
  c.bkg = 2.0;
  c.field_g = 120.0;
  c.fit_end_us = fit_end_us;
  c.seed = seed;
  return c;
}

TEST(MusrIminuit, MinosAgreesWithMinuit2) {
  const Eq5Config c = precession(1, 1500, 50, 300.0, 5.0, 9);
  const auto [r, m] = fit_both(c, true);
  double worst = 0.0;
  for (std::size_t i = 0; i < r.params.size(); ++i) {
    ASSERT_TRUE(r.params[i].minos_minus && r.params[i].minos_plus);
    const double lo = m["minos"][i][0], hi = m["minos"][i][1];
    EXPECT_NEAR(*r.params[i].minos_minus, lo, 1e-3 * std::fabs(lo)) << r.params[i].name;
    EXPECT_NEAR(*r.params[i].minos_plus, hi, 1e-3 * hi) << r.params[i].name;
    worst = std::max({worst, std::fabs(*r.params[i].minos_minus / lo - 1), std::fabs(*r.params[i].minos_plus / hi - 1)});
  }
  std::printf("musr MINOS vs Minuit2 MINOS: max relative difference %.2e\n", worst);
}

TEST(MusrIminuit, AgreesWithMinuit2OnTheSameChi2) {
  const Eq5Config c = precession(2, 2500, 100, 800.0, 6.0, 7);
  const auto [r, m] = fit_both(c, false);
  ASSERT_TRUE(r.converged);
  ASSERT_TRUE(m["valid"].get<bool>());
  EXPECT_NEAR(r.fmin, m["fval"].get<double>(), 1e-6 * r.fmin);
  double worst_value = 0.0, worst_error = 0.0;
  for (std::size_t i = 0; i < r.params.size(); ++i) {
    const double mv = m["values"][i], me = m["errors"][i];
    worst_value = std::max(worst_value, std::fabs(r.params[i].value - mv) / me);
    worst_error = std::max(worst_error, std::fabs(r.params[i].error / me - 1.0));
    EXPECT_NEAR(r.params[i].value, mv, 1e-3 * me) << r.params[i].name;
    EXPECT_NEAR(r.params[i].error, me, 1e-3 * me) << r.params[i].name;  // HESSE vs HESSE
  }
  std::printf("musr vs Minuit2: max |Δvalue|/error = %.2e, max |error ratio − 1| = %.2e, χ² %.6f vs %.6f\n",
              worst_value, worst_error, r.fmin, m["fval"].get<double>());
}

}  // namespace
}  // namespace tomo::musr
