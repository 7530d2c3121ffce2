// Every problem reads its whole configuration before any work (ProblemInfo::read_config), so an
// unknown key stops a run before its output folder exists. A key that the run reads but the
// hook does not would make every scene that sets it look unknown: each shipped scene must leave
// no key unread by its problem's hook.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/scene.hpp"

namespace tomo {
namespace {

TEST(SceneKeysUpFront, EveryProblemHasAConfigHook) {
  for (const ProblemInfo* p : ProblemRegistry::instance().all())
    EXPECT_TRUE(bool(p->read_config)) << p->name << " registers no read_config";
}

TEST(SceneKeysUpFront, EveryShippedSceneIsReadWholeByItsProblemsHook) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(TOMO_SOURCE_DIR) / "scenes")) {
    if (entry.path().extension() != ".toml") continue;
    Scene scene = Scene::load_file(entry.path());
    const std::string name = scene.get<std::string>("problem", "glpet");
    (void)scene.get<std::string>("backend", "");  // read by the CLI itself
    const ProblemInfo& problem = ProblemRegistry::instance().find(name);
    ASSERT_TRUE(bool(problem.read_config)) << name;
    try {
      problem.read_config(scene);
    } catch (const InputError& e) {
      ADD_FAILURE() << entry.path().filename() << ": " << e.what();
      continue;
    }
    for (const std::string& key : scene.unused_keys())
      ADD_FAILURE() << entry.path().filename() << ": key '" << key << "' is not read by " << name
                    << "'s read_config (a run would call it unknown)";
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

TEST(SceneKeysUpFront, ATypoIsRefusedByTheHookWithTheNearestKey) {
  Scene scene = Scene::load_string("problem = \"strip\"\n[strip]\niteratoins = 3\n", "typo.toml");
  const ProblemInfo& problem = ProblemRegistry::instance().find("strip");
  problem.read_config(scene);
  try {
    scene.check_unknown_keys();
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown key 'strip.iteratoins' (did you mean 'strip.iterations'?)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tomo
