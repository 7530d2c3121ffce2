// FUNCTIONS bounds: nesting, length, count and funN → funM chains just over their limits are
// refused with file:line (no stack overflow); a realistic expression is accepted.
#include <gtest/gtest.h>

#include "compute/core/error.hpp"
#include "compute/musr/fit_setup.hpp"

namespace tomo::musr {
namespace {

std::string msr_with(const std::string& functions) {
  return "title\nFITPARAMETER\n 1 N0 10 1\n 2 A 0.2 0.01\nTHEORY\nasymmetry 2\nFUNCTIONS\n" + functions +
         "RUN f X TEST PSI-BIN\nfittype 0\nnorm fun1\nbackgr.fix 0.5\nforward 1\ndata 3 15\nt0 2\npacking 3\nCOMMANDS\nMIGRAD\n";
}

PsiBinFile flat() {
  PsiBinFile f;
  f.bin_width_us = 0.001;
  f.histograms = {std::vector<std::int32_t>(20, 100)};
  f.t0 = {2};
  f.first_good = {3};
  f.last_good = {15};
  return f;
}

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// The refusal of fitting `functions` (parse and lowering), or "(accepted)".
std::string refusal(const std::string& functions) {
  try {
    MsrFile m = parse_msr(msr_with(functions), "s.msr");
    m.path = "s.msr";
    prepare_fit(m, [](const MsrRun&) { return flat(); });
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(MusrFunctionBounds, NestingJustOverTheBoundIsRefused) {
  const std::size_t n = kMaxExpressionDepth;  // + the operand's own level: one over
  for (const std::string& text : {repeat("(", n) + "par1" + repeat(")", n), repeat("-", n) + "par1",
                                  repeat("exp(", n) + "par1" + repeat(")", n)}) {
    const auto msg = refusal("fun1 = " + text + "\n");
    EXPECT_EQ(msg.rfind("s.msr:8: ", 0), 0u) << msg;
    EXPECT_NE(msg.find("nested more than 200 deep"), std::string::npos) << msg;
    EXPECT_LT(msg.size(), 300u) << "the expression is echoed whole";
  }
  // One level less is accepted.
  EXPECT_EQ(refusal("fun1 = " + repeat("(", n - 1) + "par1" + repeat(")", n - 1) + "\n"), "(accepted)");
}

TEST(MusrFunctionBounds, LongFlatSumIsRefused) {
  std::string sum = "par1";
  while (sum.size() <= kMaxExpressionChars) sum += " + par1";
  const auto msg = refusal("fun1 = " + sum + "\n");
  EXPECT_EQ(msg.rfind("s.msr:8: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("characters, more than the 4096 allowed"), std::string::npos) << msg;
  EXPECT_LT(msg.size(), 300u);
}

TEST(MusrFunctionBounds, FunctionChainsAndCountsAreBounded) {
  std::string chain;
  for (std::size_t i = 1; i <= kMaxFunctionChain + 1; ++i) chain += "fun" + std::to_string(i) + " = fun" + std::to_string(i + 1) + "\n";
  chain += "fun" + std::to_string(kMaxFunctionChain + 2) + " = par1\n";
  const auto msg = refusal(chain);
  EXPECT_NE(msg.find("s.msr:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("more than 100 functions referring to one another"), std::string::npos) << msg;
  // A chain of 50 is fine.
  std::string ok;
  for (int i = 1; i < 50; ++i) ok += "fun" + std::to_string(i) + " = 0.5 * fun" + std::to_string(i + 1) + "\n";
  EXPECT_EQ(refusal(ok + "fun50 = par1\n"), "(accepted)");
  std::string many = "fun1 = par1\n";
  for (std::size_t i = 2; i <= kMaxFunctions + 1; ++i) many += "fun" + std::to_string(i) + " = par2\n";
  EXPECT_NE(refusal(many).find("more than 1000 FUNCTIONS"), std::string::npos);
}

TEST(MusrFunctionBounds, RealisticExpressionIsAccepted) {
  EXPECT_EQ(refusal("fun1 = par1 * (1.0 + 0.5 * cos(2 * pi * gamma_mu * par2 * 0.1)) / sqrt(1 + pow(par2, 2)) * "
                    "exp(-(-(par2 / 2)))\n"),
            "(accepted)");
}

}  // namespace
}  // namespace tomo::musr
