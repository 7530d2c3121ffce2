// ADDRUN: an added run's histograms are summed into the RUN's after shifting by
// ⌊addt0⌋ − ⌊t0⌋ bins (its t0 from the addt0 line, else its data file, as musrfit).
#include <gtest/gtest.h>

#include "compute/core/error.hpp"
#include "compute/musr/fit_setup.hpp"

namespace tomo::musr {
namespace {

PsiBinFile scaled_ramp(int scale, int t0) {
  PsiBinFile f;
  f.bin_width_us = 0.001;
  std::vector<std::int32_t> v(20);
  for (int i = 0; i < 20; ++i) v[i] = scale * i + 1;
  f.histograms = {v};
  f.t0 = {t0};
  f.first_good = f.last_good = {0};
  return f;
}

std::string with_addrun(const std::string& extra) {
  return "title\nFITPARAMETER\n 1 N0 10 1\n 2 A 0.2 0.01\nTHEORY\nasymmetry 2\n"
         "RUN main X TEST PSI-BIN\nADDRUN other X TEST PSI-BIN\n" + extra +
         "fittype 0\nnorm 1\nforward 1\nbackgr.fix 0\ndata 3 10\nt0 2\nCOMMANDS\nSCALE_N0_BKG FALSE\nMIGRAD\n";
}

PsiBinFile load(const MsrRun& r) { return r.file == "main" ? scaled_ramp(1, 2) : scaled_ramp(100, 5); }

TEST(MusrAddRun, AddedHistogramsAreAlignedAtTheirT0) {
  // No addt0: the added file's t0 5 against the RUN's 2 → shift 3: bin 3 = (3 + 1) + (100·6 + 1).
  auto s = prepare_fit(parse_msr(with_addrun(""), "a.msr"), load);
  ASSERT_EQ(s.data.runs[0].y.size(), 7u);
  EXPECT_DOUBLE_EQ(s.data.runs[0].y[0], 4.0 + 601.0);
  // addt0 4 → shift 2: bin 3 = 4 + (100·5 + 1).
  s = prepare_fit(parse_msr(with_addrun("addt0 4\n"), "a.msr"), load);
  EXPECT_DOUBLE_EQ(s.data.runs[0].y[0], 4.0 + 501.0);
  // More addt0 lines than ADDRUN lines: refused.
  EXPECT_THROW(parse_msr(with_addrun("addt0 4\naddt0 5\n"), "a.msr"), InputError);
}

}  // namespace
}  // namespace tomo::musr
