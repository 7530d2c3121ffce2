// What the `tomoraster fit` tests share: simulated eq. (5) data as msr + PSI-BIN files to fit.
#pragma once
#include <filesystem>

#include <gtest/gtest.h>

#include "tests/apps/cli_run.hpp"
#include "tests/support/text_file.hpp"

namespace tomo::test {

// `dir`/sim/musr_eq5.msr and musr_eq5.bin: 2 detectors of 2000 bins, fitted up to 5 μs (seconds
// to fit on the cpu).
inline void simulate_musr(const std::filesystem::path& dir) {
  const auto sim = run_cli(
      "-q run musr_default.toml --set musr.detectors=2 --set musr.bins=2000 --set musr.fit_end=5.0 -o sim", dir);
  ASSERT_EQ(sim.status, 0) << sim.output;
  ASSERT_TRUE(std::filesystem::exists(dir / "sim" / "musr_eq5.bin")) << sim.output;
}

}  // namespace tomo::test
