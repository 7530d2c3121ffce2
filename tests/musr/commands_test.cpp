// COMMANDS as musrfit reads them: `STRATEGY=2` is STRATEGY (a value only as a second token),
// `END RETURN`, `CHI_SQUARE` and `MACHINE_PRECISION` are accepted (kept, and ignored by the
// minimiser), `#` starts a comment, anything else is refused naming line and token.
#include <gtest/gtest.h>

#include "compute/core/error.hpp"
#include "compute/musr/msr.hpp"

namespace tomo::musr {
namespace {

std::string with_commands(const std::string& commands) {
  return "title\nFITPARAMETER\n 1 A 0.2 0.01\nTHEORY\nasymmetry 1\n"
         "RUN f X TEST PSI-BIN\nfittype 2\nforward 1\nbackward 2\nbackgr.fix 0 0\nCOMMANDS\n" +
         commands;
}

TEST(MusrCommands, AcceptedAsMusrfitReadsThem) {
  const MsrFile m = parse_msr(with_commands("STRATEGY=2\nMINIMIZE   # the fit\nCHI_SQUARE\nMACHINE_PRECISION 1e-10\nEND RETURN\n"), "c.msr");
  EXPECT_EQ(m.commands, (std::vector<std::string>{"STRATEGY", "MINIMIZE", "CHI_SQUARE", "MACHINE_PRECISION 1e-10", "END RETURN"}));
  EXPECT_FALSE(m.max_likelihood());
  try {
    parse_msr(with_commands("MINIMIZE\nFIT_RANGE 0 5\n"), "c.msr");
    FAIL() << "FIT_RANGE (which would change the fit) was accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "c.msr:13: unknown command 'FIT_RANGE'");
  }
}

}  // namespace
}  // namespace tomo::musr
