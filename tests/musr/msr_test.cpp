// The msr reader against musrfit's grammar (good and bad lines, errors naming line and token)
// and the writer (values, errors, MINOS errors, STATISTIC; read back equal).
#include <gtest/gtest.h>

#include <string>

#include "compute/core/error.hpp"
#include "compute/musr/msr.hpp"

namespace tomo::musr {
namespace {

const char* kGood = R"(LSCO x=0.02 (cleaved), T=5 K, TF=100 G
###############################################################
FITPARAMETER
#      No Name        Value     Step        Pos_Error   Boundaries
        1 alpha       1.0101    0.0079      none
        2 Asy         0.2235    0.0026      none        0       0.33
        3 Rate        0.4012    0.0100
        4 Field       99.85     0.1         none        none    200
        5 Phase       -12.3     1.2
        6 N0          1023.4    1.0
        7 Bkg         4.2       0
        8 beta        1.5       0.1         0.12        1       2

###############################################################
THEORY
asymmetry   2
simplExpo   3            (rate)
TFieldCos   map1 fun1    (phase frequency)
+
ge          3  8
###############################################################
FUNCTIONS
fun1 = gamma_mu * par4
fun2 = par6 * (1.0 + par1) / 2

###############################################################
GLOBAL
fittype         0
fit             0.005   8.0
packing         10

###############################################################
RUN data/deltat_pta_gps_2650 PIM3 PSI PSI-BIN   (name beamline institute data-file-format)
norm            fun2
backgr.fix      4.2
lifetimecorrection
map             5    0    0
forward         1-4 7
data            120     66000
t0              100.0   101.0   100.0   99.0   100.0

###############################################################
RUN data/deltat_pta_gps_2651 PIM3 PSI PSI-BIN
fittype         2
alpha           1
forward         1
backward        2
background      20 80 20 80
data            120 66000 120 66000
t0              100 100
fit             fgb+10  lgb-100
packing         5

###############################################################
COMMANDS
FIX 8
MIGRAD
RELEASE beta
MINIMIZE
HESSE
MINOS
SAVE

###############################################################
PLOT 0   (single histo plot)
runs     1
range    0   9   -0.3   0.3
)";

TEST(MusrMsr, ReadsMusrfitBlocks) {
  const MsrFile m = parse_msr(kGood, "good.msr");
  EXPECT_EQ(m.title, "LSCO x=0.02 (cleaved), T=5 K, TF=100 G");
  ASSERT_EQ(m.params.size(), 8u);
  EXPECT_EQ(m.params[1].name, "Asy");
  EXPECT_DOUBLE_EQ(*m.params[1].lower, 0.0);
  EXPECT_DOUBLE_EQ(*m.params[1].upper, 0.33);
  EXPECT_FALSE(m.params[3].lower);
  EXPECT_DOUBLE_EQ(*m.params[3].upper, 200.0);
  EXPECT_TRUE(m.params[6].fixed());
  EXPECT_DOUBLE_EQ(*m.params[7].pos_error, 0.12);
  ASSERT_EQ(m.theory.size(), 2u);  // a + b·c·d, then + ge
  EXPECT_EQ(m.theory[0].size(), 3u);
  EXPECT_EQ(m.theory[0][2].args[0].kind, TheoryArg::Kind::map);
  EXPECT_EQ(m.theory[0][2].args[1].kind, TheoryArg::Kind::fun);
  EXPECT_EQ(m.theory[1][0].fn, TheoryFn::gener_expo);
  ASSERT_EQ(m.functions.size(), 2u);
  ASSERT_EQ(m.runs.size(), 2u);
  const auto& r = m.runs[0];
  EXPECT_EQ(r.file, "data/deltat_pta_gps_2650");
  EXPECT_EQ(r.fittype(), 0);  // from GLOBAL
  EXPECT_TRUE(r.norm.is_fun);
  EXPECT_EQ(r.forward, (std::vector<int>{1, 2, 3, 4, 7}));
  EXPECT_EQ(r.settings.packing.value(), 10);  // from GLOBAL
  EXPECT_DOUBLE_EQ(r.settings.fit->end, 8.0);
  EXPECT_EQ(r.settings.t0.size(), 5u);
  const auto& a = m.runs[1];
  EXPECT_EQ(a.fittype(), 2);
  EXPECT_TRUE(a.settings.fit->in_bins);
  EXPECT_EQ(a.settings.fit->start_offset, 10);
  EXPECT_EQ(a.settings.fit->end_offset, 100);
  EXPECT_EQ(a.settings.packing.value(), 5);
  EXPECT_TRUE(m.minos());
  EXPECT_FALSE(m.max_likelihood());
  EXPECT_TRUE(m.scale_n0_bkg());
}

// Replaces the first occurrence of `from` in the good file and expects an InputError whose
// text names the line and contains `token`.
void expect_bad(const std::string& from, const std::string& to, int line, const std::string& token) {
  std::string text = kGood;
  auto pos = text.find(from);
  ASSERT_NE(pos, std::string::npos) << from;
  text.replace(pos, from.size(), to);
  try {
    parse_msr(text, "bad.msr");
    ADD_FAILURE() << "accepted: " << to;
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (line > 0) {
      EXPECT_NE(what.find("bad.msr:" + std::to_string(line) + ":"), std::string::npos) << what;
    }
    EXPECT_NE(what.find(token), std::string::npos) << what;
  }
}

TEST(MusrMsr, RejectsBadLinesNamingLineAndToken) {
  expect_bad("        3 Rate        0.4012    0.0100", "        3 Rate        0.4x12    0.0100", 7, "0.4x12");
  expect_bad("        3 Rate        0.4012    0.0100", "        4 Rate        0.4012    0.0100", 7, "out of order");
  expect_bad("        3 Rate        0.4012    0.0100", "        3 Rate        0.4012", 7, "tokens");
  expect_bad("        3 Rate        0.4012    0.0100", "        3 Rate   0.4 0.01 none 5 1", 7, "not below");
  expect_bad("        3 Rate        0.4012    0.0100", "        3 Asy   0.4 0.01", 7, "used twice");
  expect_bad("simplExpo   3            (rate)", "simplExpox   3", 17, "simplExpox");
  expect_bad("simplExpo   3            (rate)", "simplExpo   3 4 5", 17, "takes 1 or 2");
  expect_bad("simplExpo   3            (rate)", "simplExpo   q", 17, "'q'");
  expect_bad("simplExpo   3            (rate)", "simplExpo   9", 17, "parameter 9");
  expect_bad("TFieldCos   map1 fun1", "TFieldCos   map1 fun7", 18, "fun7");
  expect_bad("fun1 = gamma_mu * par4", "fun1 = gamma_mu * * par4", 23, "column");
  expect_bad("fun1 = gamma_mu * par4", "fun1 = sin(par4", 23, "expected ')'");
  expect_bad("fun1 = gamma_mu * par4", "fnu1 = par4", 23, "funN");
  expect_bad("fittype         0", "fittype         6", 28, "'6'");
  expect_bad("packing         10", "packing         0", 30, "packing");
  expect_bad("fit             0.005   8.0", "fit             8.0   1.0", 29, "not after");
  expect_bad("norm            fun2", "norm            fun9", 33, "fun9");
  expect_bad("forward         1-4 7", "forward         4-1", 38, "4-1");
  expect_bad("forward         1-4 7", "forward         0", 38, "'0'");
  expect_bad("map             5    0    0", "mapp            5", 37, "mapp");
  expect_bad("backgr.fix      4.2", "backgr.fix      nan", 35, "nan");
  expect_bad("PIM3 PSI PSI-BIN   (name", "PIM3 PSI ZIP   (name", 33, "ZIP");
  expect_bad("MIGRAD", "MIGRADE", 57, "MIGRADE");
  expect_bad("fit             fgb+10  lgb-100", "fit             fgb+10  lgb+100", 51, "lgb+100");
  expect_bad("asymmetry   2", "userFcn  libFoo.so TFoo 1", 16, "userFcn");
  expect_bad("FITPARAMETER\n", "FITPARAMETER extra\n", 3, "extra");
}

TEST(MusrMsr, WritesBackValuesErrorsMinosAndStatistic) {
  const MsrFile m = parse_msr(kGood, "good.msr");
  auto fitted = m.params;
  fitted[1].value = 0.2241;
  fitted[1].step = -0.0025;  // MINOS ran: step holds the negative error
  fitted[1].pos_error = 0.0027;
  fitted[2].value = 0.3999;
  fitted[2].step = 0.0101;
  MsrStatistic stat{false, 12345.6, 11000, "2026-11-23 04:00:00"};
  const std::string out = format_msr(m, fitted, stat);
  EXPECT_NE(out.find("STATISTIC --- 2026-11-23 04:00:00"), std::string::npos);
  EXPECT_NE(out.find("chisq = 12345.6, NDF = 11000, chisq/NDF = 1.122327"), std::string::npos) << out;
  const MsrFile back = parse_msr(out, "back.msr");
  ASSERT_EQ(back.params.size(), m.params.size());
  EXPECT_NEAR(back.params[1].value, 0.2241, 1e-9);
  EXPECT_NEAR(back.params[1].step, -0.0025, 1e-9);
  EXPECT_NEAR(*back.params[1].pos_error, 0.0027, 1e-9);
  EXPECT_DOUBLE_EQ(*back.params[1].upper, 0.33);
  EXPECT_NEAR(back.params[2].step, 0.0101, 1e-9);
  EXPECT_TRUE(back.statistic.has_value());
  EXPECT_EQ(back.runs.size(), 2u);
  EXPECT_EQ(back.commands, m.commands);
  // A second write replaces the STATISTIC block instead of adding one.
  const std::string again = format_msr(back, back.params, stat);
  EXPECT_EQ(again.find("STATISTIC"), again.rfind("STATISTIC"));
}

TEST(MusrMsr, HistogramLists) {
  EXPECT_EQ(parse_histogram_list({"1-3", "5"}, "x"), (std::vector<int>{1, 2, 3, 5}));
  EXPECT_THROW(parse_histogram_list({"3-1"}, "x"), InputError);
  EXPECT_THROW(parse_histogram_list({"1-100000"}, "x"), InputError);
  EXPECT_THROW(parse_histogram_list({"a"}, "x"), InputError);
}

TEST(Msr, StatisticIsTheFitsLineNotTheExpectedOne) {
  // musrfit writes "expected maxLH = …" after the fit's line (ASlibs/test-nonlocal.msr): the
  // result is the first.
  const MsrFile m = parse_msr(std::string(kGood) +
                                  "STATISTIC --- 2021-03-30 15:04:30\n"
                                  "  maxLH = 415.6, NDF = 358, maxLH/NDF = 1.160942\n"
                                  "  expected maxLH = 418.1, NDF = 358, expected maxLH/NDF = 1.168011\n"
                                  "  run block 1: (NDF/red.maxLH/red.maxLH_e) = (177/1.072511/1.087460)\n",
                              "x.msr");
  ASSERT_TRUE(m.statistic);
  EXPECT_TRUE(m.statistic->max_likelihood);
  EXPECT_EQ(m.statistic->value, 415.6);
  EXPECT_EQ(m.statistic->ndf, 358);
}

}  // namespace
}  // namespace tomo::musr
