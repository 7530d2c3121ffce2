// Non-μSR x-y test data (fittype 8): y = A e^(−λx) + c with Gaussian noise of known σ, drawn
// from the formula written out here (not from the expression program under test), written as
// an ASCII file beside an msr file that fits it.
#pragma once
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "compute/musr/msr.hpp"

namespace tomo::musr::test {

struct XyTruth {
  double a = 5.0, lambda = 0.7, c = 1.2;
};

inline double xy_x(int k) { return 0.1 + 0.2 * k; }
inline double xy_sigma(int k) { return 0.08 + 0.04 * (k % 3); }

// Writes `dir`/sim.dat (60 points, x = 0.1 … 11.9) and `dir`/sim.msr (fit range 0.5 … 11, start
// values off the truth) and returns the msr as read.
inline MsrFile write_xy_case(const std::filesystem::path& dir, unsigned seed, int packing = 1, const XyTruth& t = {}) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  {
    std::ofstream f(dir / "sim.dat");
    f << "# simulated\nHEADER\nTITLE: simulation\nX-AXIS-TITLE: x\nDATA\n";
    f.precision(17);
    for (int k = 0; k < 60; ++k) {
      const double x = xy_x(k), y = t.a * std::exp(-t.lambda * x) + t.c + xy_sigma(k) * noise(rng);
      f << x << ", " << y << ", " << xy_sigma(k) << "\n";
    }
  }
  std::ofstream(dir / "sim.msr") << "x-y simulation\nFITPARAMETER\n  1 A 4.0 0.1\n  2 lambda 0.5 0.05\n  3 c 1.0 0.1\n"
                                    "THEORY\nasymmetry 1\nsimplExpo 2\n+\nconst 3\n"
                                    "RUN sim PIM3 PSI ASCII\nfittype 8\nxy-data 1 2\nfit 0.5 11\npacking "
                                 << packing << "\nCOMMANDS\nMIGRAD\nHESSE\n";
  return read_msr(dir / "sim.msr");
}

}  // namespace tomo::musr::test
