// The defaults docs/strip.md states are the ones the code uses when a key is absent.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "compute/core/scene.hpp"
#include "compute/strip/config.hpp"

namespace tomo::strip {
namespace {

// `| \`key\` | default | meaning |` rows of the scene-key table: key → the default column.
std::map<std::string, std::string> documented_defaults() {
  std::ifstream in(std::string(TOMO_SOURCE_DIR) + "/docs/strip.md");
  std::map<std::string, std::string> out;
  static const std::regex row(R"(^\| `(\w+)` \| ([^|]+) \|)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) out[m[1]] = m[2];
  }
  return out;
}

double first_number(const std::string& s) { return std::stod(s.substr(s.find_first_of("0123456789"))); }

TEST(StripConfigDocs, DocumentedDefaultsAreTheCodes) {
  const auto doc = documented_defaults();
  ASSERT_GE(doc.size(), 10u) << "the scene-key table of docs/strip.md was not found";
  const StripConfig c = StripConfig::from_scene(Scene::load_string("problem = \"strip\"\n[strip]\n", "<empty>"));
  const std::map<std::string, double> code = {
      {"R", c.geometry.R},         {"L", c.geometry.L},
      {"pixel_size", c.geometry.pixel_y},
      {"nsigma", c.options.nsigma}, {"events", double(c.events)},
      {"seed", double(c.seed)},    {"iterations", double(c.iterations)},
      {"threads", double(c.options.threads)},
      {"crosscheck_events", double(c.crosscheck_events)},
  };
  for (const auto& [key, value] : code) {
    const auto it = doc.find(key);
    ASSERT_NE(it, doc.end()) << key << " is not in docs/strip.md";
    EXPECT_DOUBLE_EQ(first_number(it->second), value) << key << ": docs say '" << it->second << "'";
  }
  EXPECT_TRUE(c.save_iterations.empty());
  EXPECT_NE(doc.at("save_iterations").find("[]"), std::string::npos) << doc.at("save_iterations");
  EXPECT_FALSE(c.write_events);
}

}  // namespace
}  // namespace tomo::strip
