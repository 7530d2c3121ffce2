// Scene loading, typed access, overrides and error messages.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "compute/core/error.hpp"
#include "compute/core/nearest_name.hpp"
#include "compute/core/scene.hpp"

using namespace tomo;

namespace {
const char* kScene = R"(problem = "demo"
[demo]
size = [8, 9, 10]
voxel_mm = [0.5, 0.5, 1.0]
iterations = 4
rate = 0.25
name = "x"
[[demo.phantom]]
type = "sphere"
radius = 3.0
value = 1.0
)";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(Scene, TypedGettersAndFallbacks) {
  Scene s = Scene::load_string(kScene, "t.toml");
  EXPECT_EQ(s.problem(), "demo");
  EXPECT_EQ((s.get<std::array<int, 3>>("demo.size", {})), (std::array<int, 3>{8, 9, 10}));
  EXPECT_DOUBLE_EQ(s.get<double>("demo.rate", 1.0), 0.25);
  EXPECT_DOUBLE_EQ(s.get<double>("demo.iterations", 0.0), 4.0);  // integer accepted as number
  EXPECT_EQ(s.get<int>("demo.missing", 17), 17);
  EXPECT_EQ(s.array_size("demo.phantom"), 1u);
  EXPECT_DOUBLE_EQ(s.get<double>(s.element_key("demo.phantom", 0) + ".radius", 0.0), 3.0);
  // The fallback is recorded in the resolved scene.
  EXPECT_EQ(s.to_json()["demo"]["missing"], 17);
}

TEST(Scene, ErrorsNameFileKeyAndExpectation) {
  Scene s = Scene::load_string(kScene, "t.toml");
  std::string e = error_of([&] { s.get<int>("demo.name", 0); });
  EXPECT_NE(e.find("t.toml"), std::string::npos) << e;
  EXPECT_NE(e.find("demo.name"), std::string::npos) << e;
  EXPECT_NE(e.find("integer"), std::string::npos) << e;
  e = error_of([&] { s.require<double>("demo.absent"); });
  EXPECT_NE(e.find("missing"), std::string::npos) << e;
  e = error_of([&] { s.get_in_range("demo.rate", 0, 0.5, 1.0); });
  EXPECT_NE(e.find("[0.5, 1]"), std::string::npos) << e;
  e = error_of([&] { s.get_choice("demo.name", "a", {"a", "b"}); });
  EXPECT_NE(e.find("one of a, b"), std::string::npos) << e;
  e = error_of([&] { Scene::load_string("problem = \n", "bad.toml"); });
  EXPECT_NE(e.find("bad.toml:1"), std::string::npos) << e;
  e = error_of([&] { Scene::load_file("/no/such/scene.toml"); });
  EXPECT_NE(e.find("not found"), std::string::npos) << e;
}

enum class Shade { light, dark };
constexpr std::array<EnumName<Shade>, 2> kShades{{{"light", Shade::light}, {"dark", Shade::dark}}};

TEST(Scene, GetEnumMapsNamesAndNamesTheKeyValueAndChoices) {
  Scene s = Scene::load_string("[demo]\nshade = \"dark\"\nbad = \"grey\"\nnum = 3\n", "e.toml");
  EXPECT_EQ(s.get_enum("demo.shade", Shade::light, kShades), Shade::dark);
  EXPECT_EQ(s.get_enum("demo.absent", Shade::light, kShades), Shade::light);
  EXPECT_EQ(s.to_json()["demo"]["absent"], "light");  // the fallback's name is recorded
  EXPECT_EQ(enum_name(kShades, Shade::dark), "dark");
  const std::string e = error_of([&] { s.get_enum("demo.bad", Shade::light, kShades); });
  EXPECT_NE(e.find("e.toml"), std::string::npos) << e;
  EXPECT_NE(e.find("demo.bad"), std::string::npos) << e;
  EXPECT_NE(e.find("'grey'"), std::string::npos) << e;
  EXPECT_NE(e.find("one of light, dark"), std::string::npos) << e;
  EXPECT_THROW(s.get_enum("demo.bad", Shade::light, kShades), InputError);
  EXPECT_THROW(s.get_enum("demo.num", Shade::light, kShades), InputError);  // not a string
}

TEST(Scene, NanIsRejected) {
  Scene s = Scene::load_string("x = nan\ny = [1.0, inf, 2.0]\n", "n.toml");
  EXPECT_THROW(s.get<double>("x", 0.0), InputError);
  EXPECT_THROW(s.get<std::vector<double>>("y", {}), InputError);
}

TEST(Scene, OverridesParseTomlValuesAndCreateKeys) {
  Scene s = Scene::load_string(kScene, "t.toml");
  s.apply_override("demo.rate=2");            // integer into a float key stays a float
  s.apply_override("demo.size=[1,2,3]");
  s.apply_override("demo.name=plain words");  // not TOML: taken as a string
  s.apply_override("newsec.flag=true");
  s.apply_override("demo.phantom[0].radius=5.5");
  EXPECT_DOUBLE_EQ(s.get<double>("demo.rate", 0), 2.0);
  EXPECT_TRUE(s.to_json()["demo"]["rate"].is_number_float());
  EXPECT_EQ((s.get<std::array<int, 3>>("demo.size", {})), (std::array<int, 3>{1, 2, 3}));
  EXPECT_EQ(s.get<std::string>("demo.name", ""), "plain words");
  EXPECT_TRUE(s.get<bool>("newsec.flag", false));
  EXPECT_DOUBLE_EQ(s.get<double>("demo.phantom[0].radius", 0), 5.5);
  std::string e = error_of([&] { s.apply_override("demo.size=\"big\""), s.get<std::array<int, 3>>("demo.size", {}); });
  EXPECT_NE(e.find("--set"), std::string::npos) << e;
  EXPECT_THROW(s.apply_override("novalue"), InputError);
}

TEST(Scene, UnusedKeysAreReported) {
  Scene s = Scene::load_string(kScene, "t.toml");
  s.problem();
  s.get<std::array<int, 3>>("demo.size", {});
  auto unused = s.unused_keys();
  EXPECT_NE(std::find(unused.begin(), unused.end(), "demo.rate"), unused.end());
  EXPECT_EQ(std::find(unused.begin(), unused.end(), "demo.size"), unused.end());
}

TEST(Scene, AnUnknownKeyIsAnErrorNamingTheNearestKnownKey) {
  Scene s = Scene::load_string("problem = \"demo\"\nbackend = \"cpu\"\n[demo]\nsize = [8, 9, 10]\nrtae = 0.5\n", "t.toml");
  s.get<std::array<int, 3>>("demo.size", {});
  s.get<double>("demo.rate", 0.25);  // absent: the fallback makes it a known key
  s.get<int>("demo.iterations", 4);
  EXPECT_EQ(error_of([&] { s.check_unknown_keys(); }), "t.toml: unknown key 'demo.rtae' (did you mean 'demo.rate'?)");
  Scene ok = Scene::load_string("problem = \"demo\"\nbackend = \"cpu\"\n[demo]\nrate = 0.5\n", "ok.toml");
  ok.get<double>("demo.rate", 0.25);
  EXPECT_NO_THROW(ok.check_unknown_keys());  // problem and backend are the CLI's keys
}

TEST(NearestName, CountsSwapsOfNeighboursAsOneEdit) {
  EXPECT_EQ(edit_distance("grdi", "grid"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(nearest_name("oat.grdi", {"oat.voxel_mm", "oat.grid", "oat.rings"}), "oat.grid");
  EXPECT_EQ(nearest_name("x", {}), "");
}

TEST(Scene, DefaultSceneIsEmbedded) {
  Scene s = Scene::load_string(embedded_default_scene(), "default");
  EXPECT_FALSE(s.problem().empty());
}
