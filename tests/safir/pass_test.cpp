// safir.pass: parsed once into Pass, and resolve_pass's choice (tiled on GPUs, fused on software GL,
// an explicit choice kept).
#include <gtest/gtest.h>

#include <string>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/safir/config.hpp"

namespace tomo::safir {
namespace {

SafirConfig load(const std::string& body) {
  return SafirConfig::from_scene(Scene::load_string("problem = \"safir\"\n[safir]\n" + body, "s.toml"));
}

TEST(SafirPass, ParsedOnceAsAnEnum) {
  EXPECT_EQ(load("").options.pass, Pass::automatic);
  EXPECT_EQ(load("pass = \"auto\"\n").options.pass, Pass::automatic);
  EXPECT_EQ(load("pass = \"tiled\"\n").options.pass, Pass::tiled);
  EXPECT_EQ(load("pass = \"fused\"\n").options.pass, Pass::fused);
  EXPECT_THROW(load("pass = \"shared\"\n"), InputError);
  EXPECT_EQ(load("write_events = \"castor\"\n").write_events, EventsFile::castor);
  EXPECT_EQ(load("").write_events, EventsFile::none);
  EXPECT_THROW(load("write_events = \"root\"\n"), InputError);
}

TEST(SafirPass, AutoIsTiledOnGpusAndFusedOnSoftwareGl) {
  EXPECT_EQ(resolve_pass(Pass::automatic, /*software_renderer=*/false), Pass::tiled);
  EXPECT_EQ(resolve_pass(Pass::automatic, /*software_renderer=*/true), Pass::fused);
  EXPECT_EQ(resolve_pass(Pass::tiled, true), Pass::tiled);
  EXPECT_EQ(resolve_pass(Pass::fused, false), Pass::fused);
}

}  // namespace
}  // namespace tomo::safir
