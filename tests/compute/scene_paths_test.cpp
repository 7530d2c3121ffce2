// Input files named in a scene are found beside the scene file, whatever the
// working directory; --set paths are the user's, relative to the working directory; a missing
// file is named with its key and the path that was tried; integer ranges are stated.
#include <gtest/gtest.h>

#include <fstream>

#include <unistd.h>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace tomo {
namespace {

// tests/support/temp_dir.hpp's folder, under the name `path` these tests use.
struct TempDir : test::TempDir {
  fs::path& path = dir;
  TempDir() : test::TempDir("tomo-scenepath") {
    fs::create_directories(path / "scenes" / "data");
  }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

TEST(ScenePaths, RelativePathsInAFileAreRelativeToThatFile) {
  TempDir t;
  std::ofstream(t.path / "scenes" / "data" / "events.txt") << "1 2 3\n";
  std::ofstream(t.path / "scenes" / "s.toml") << "problem = \"strip\"\n[strip]\nevents_file = \"data/events.txt\"\n";
  const Scene s = Scene::load_file(t.path / "scenes" / "s.toml");
  const fs::path cwd = fs::current_path();
  fs::current_path(fs::temp_directory_path());  // anywhere but the scene's folder
  const fs::path p = s.get_input_path("strip.events_file");
  fs::current_path(cwd);
  EXPECT_EQ(p, (fs::absolute(t.path) / "scenes" / "data" / "events.txt").lexically_normal());
  EXPECT_TRUE(s.get_input_path("strip.other_file").empty());
}

TEST(ScenePaths, MissingFileNamesKeyAndResolvedPath) {
  TempDir t;
  std::ofstream(t.path / "scenes" / "s.toml") << "problem = \"fdk\"\n[fdk]\ninput = \"nope.rct\"\n";
  const Scene s = Scene::load_file(t.path / "scenes" / "s.toml");
  const std::string e = error_of([&] { s.get_input_path("fdk.input"); });
  EXPECT_NE(e.find("fdk.input"), std::string::npos) << e;
  EXPECT_NE(e.find((fs::absolute(t.path) / "scenes" / "nope.rct").lexically_normal().string()), std::string::npos) << e;
  const std::string d = error_of([&] {
    Scene s2 = Scene::load_file(t.path / "scenes" / "s.toml");
    s2.apply_override("fdk.input=\"" + (t.path / "scenes").string() + "\"");
    s2.get_input_path("fdk.input");
  });
  EXPECT_NE(d.find("fdk.input"), std::string::npos) << d;
  EXPECT_NE(d.find("is a folder, not a file"), std::string::npos) << d;
  const std::string f = error_of([&] {
    Scene s3 = Scene::load_file(t.path / "scenes" / "s.toml");
    s3.apply_override("fdk.input=/dev/null");
    s3.get_input_path("fdk.input");
  });
  EXPECT_NE(f.find("is not a regular file (a device, FIFO or socket"), std::string::npos) << f;
}

TEST(ScenePaths, SetPathsAreRelativeToTheWorkingDirectory) {
  TempDir t;
  std::ofstream(t.path / "events.txt") << "1 2 3\n";
  Scene s = Scene::load_string("problem = \"strip\"\n", "<embedded>");
  s.apply_override("strip.events_file=events.txt");
  const fs::path cwd = fs::current_path();
  fs::current_path(t.path);
  const fs::path p = s.get_input_path("strip.events_file");
  fs::current_path(cwd);
  EXPECT_EQ(p, fs::path("events.txt"));
}

TEST(ScenePaths, IntegerRangeIsStated) {
  const Scene s = Scene::load_string("problem = \"x\"\n[x]\nn = 1000000000000\n", "<t>");
  const std::string e = error_of([&] { s.get<int>("x.n", 1); });
  EXPECT_NE(e.find("from -2147483648 to 2147483647"), std::string::npos) << e;
}

}  // namespace
}  // namespace tomo

namespace tomo {
namespace {

// tests/fuzz found toml++ 3.3 reaching __builtin_unreachable on characters outside ASCII where
// it expects whitespace; TOML allows them only in strings and comments, so they are refused first.
TEST(SceneText, NonAsciiOutsideStringsAndCommentsIsRefusedWithItsPlace) {
  const std::string e = error_of([] { Scene::load_string("problem = \"x\"\n\xc2\xb3 = 1\n", "<t>"); });
  EXPECT_NE(e.find("<t>:2:1: malformed scene: a character outside ASCII"), std::string::npos) << e;
  // allowed: in comments, basic, literal and multi-line strings (with escaped quotes)
  const Scene s = Scene::load_string(
      "# \xcf\x83 in a comment\nproblem = \"\xc2\xb5 \\\" \xc2\xb3\"\nb = '\xc3\xa9'\nc = \"\"\"\n\xe2\x80\x94\"\"\"\n"
      "d = '''\xe2\x80\xa6'''  # \xc3\x97\n",
      "<t>");
  EXPECT_EQ(s.get<std::string>("b", ""), "\xc3\xa9");
  // quoted dotted keys, inline tables and arrays keep their strings
  const Scene k = Scene::load_string(
      "problem = \"x\"\nt.\"\xc2\xb5\" = 1\nu = { a = \"\xc3\xa9\", b.\"\xc2\xb3\" = 2 }\nv = [\"\xc2\xb5\",\n \"\xc3\xa9\"]\n", "<t>");
  EXPECT_EQ(k.get<std::string>("u.a", ""), "\xc3\xa9");
  // toml++'s whitespace test after a backslash: refused there too, as is a quote that opens no string
  // (`40."""` in a value is one malformed number that toml++ scans to its end, not a dotted key)
  for (const char* text : {"a = \"\"\"\\\n  \xc3\xa9\"\"\"\n", "a = \"\"\"\\\xc3\xa9\"\"\"\n", "a = 1\"\"\"8\xc2\xb9\n",
                           "s = 40.\"\"\"\\\\+\\\\\xef\xb3\xbf# x\n", "s = [1, 2.\"\xc2\xa7\"]\n",
                           "v = 8=\"8\xc2\xb9\"\n", "v = [8=\"\xc2\xb9\"]\n", "v = { a = 1 b = \"\xc3\xa9\" }\n",
                           "v = 88888[[[\"\"\"8\xc2\xb9\n", "v = [1, 2{\"\xc2\xb9\"}]\n"}) {
    const std::string m = error_of([&] { Scene::load_string(text, "<t>"); });
    EXPECT_NE(m.find("malformed scene: a character outside ASCII"), std::string::npos) << text << ": " << m;
  }
  Scene o = Scene::load_string("problem = \"x\"\n", "<t>");
  o.apply_override("x.name=\xcf\x83");  // --set keeps taking unparsable text as a bare string
  EXPECT_EQ(o.get<std::string>("x.name", ""), "\xcf\x83");
  o.apply_override("x.v=8=\"8\xc2\xb9\"");  // one malformed token toml++ would scan: a bare string too
  EXPECT_EQ(o.get<std::string>("x.v", ""), "8=\"8\xc2\xb9\"");
}

}  // namespace
}  // namespace tomo
