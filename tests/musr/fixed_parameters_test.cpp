// Fixed parameters seen at build time: ProgramBuilder::known_value folds constants and fixed
// parameters (and arithmetic on them) so a native user function can move them out of a table's
// three arguments; register_fixed_parameters marks step-0 parameters unless COMMANDS can release one.
#include <gtest/gtest.h>

#include <cmath>

#include "compute/musr/expression.hpp"
#include "compute/musr/fit_setup.hpp"

namespace tomo::musr {
namespace {

TEST(MusrFixedParameters, KnownValueFoldsConstantsAndFixedParameters) {
  ProgramBuilder b(3);
  b.set_fixed(1, 2.5);
  const auto fixed = b.param(1), free = b.param(0), t = b.time();
  EXPECT_EQ(b.known_value(b.constant(4.0)).value(), 4.0);
  EXPECT_EQ(b.known_value(fixed).value(), 2.5);
  // fun = 1000·par2 + exp(par2): arithmetic of a fixed parameter is known.
  const auto fun = b.add(b.mul(b.constant(1000.0), fixed), b.unary(OpCode::exp, fixed));
  EXPECT_DOUBLE_EQ(b.known_value(fun).value(), 2500.0 + std::exp(2.5));
  EXPECT_FALSE(b.known_value(free).has_value());
  EXPECT_FALSE(b.known_value(b.add(fixed, free)).has_value());
  EXPECT_FALSE(b.known_value(b.mul(fixed, t)).has_value());
  EXPECT_FALSE(b.known_value(-1).has_value());
  // A fixed parameter is still a parameter node of the program (its gradient slot stays).
  EXPECT_EQ(b.nodes()[static_cast<std::size_t>(fixed)].op, OpCode::param);
}

MsrFile file_with(std::vector<std::string> commands) {
  MsrFile m;
  MsrParameter p;
  p.number = 1, p.name = "free", p.value = 1.0, p.step = 0.1;
  m.params.push_back(p);
  p.number = 2, p.name = "thickness", p.value = 50.0, p.step = 0.0;
  m.params.push_back(p);
  m.commands = std::move(commands);
  return m;
}

TEST(MusrFixedParameters, StepZeroIsFixedUnlessCommandsReleaseIt) {
  {
    const MsrFile m = file_with({"MIGRAD", "HESSE"});
    ProgramBuilder b(2);
    register_fixed_parameters(m, b);
    EXPECT_EQ(b.known_value(b.param(1)).value(), 50.0);
    EXPECT_FALSE(b.known_value(b.param(0)).has_value());
  }
  for (const char* c : {"release 2", "RESTORE"}) {
    const MsrFile m = file_with({"FIX 1", c, "MIGRAD"});
    ProgramBuilder b(2);
    register_fixed_parameters(m, b);
    EXPECT_FALSE(b.known_value(b.param(1)).has_value()) << c;
  }
}

}  // namespace
}  // namespace tomo::musr
