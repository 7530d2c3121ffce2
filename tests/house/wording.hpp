// Comments and docs stand on their own: no source, test, script or doc names an issue by
// its number, a defect id used as one (a capital D and a number), a review round by its
// ordinal, a seed file by its number (cite the paper's key from docs/references.md) or a
// path outside the repository (the shared folder beside it, the absolute work folder).
// tests/house/wording_test.cpp shows each rule catching what it should.
#pragma once
#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/house/tree.hpp"

namespace tomo::house {

struct WordingRule {
  std::regex pattern;
  std::string why;
};

inline const std::vector<WordingRule>& wording_rules() {
  using std::regex_constants::icase;
  static const std::vector<WordingRule> rules = {
      {std::regex(R"re(\bissues?\s*#?\s*[0-9]+)re", std::regex::ECMAScript | icase), "names an issue"},
      {std::regex(R"re(\bD[0-9]{1,2}\b)re"), "names a defect id"},
      {std::regex(R"re(\brounds?\s+(one|two|three|four|five|six|seven|eight|nine|ten|[0-9]+)\b)re",
                  std::regex::ECMAScript | icase),
       "names a review round"},
      {std::regex(R"re(\b(first|second|third|fourth|fifth|sixth|previous|last)\s+(review\s+)?round\b)re",
                  std::regex::ECMAScript | icase),
       "names a review round"},
      {std::regex(R"re(\bseeds?\s+00[0-9])re", std::regex::ECMAScript | icase),
       "names a seed file: cite the paper's key from docs/references.md"},
      {std::regex(R"re(\.\./shared\b|(^|[\s"'`(=])/wor[k]/|\bshared/(seeds|notes|tools)/)re"),
       "names a path outside the repository"},
  };
  return rules;
}

// Places where a rule's words are the subject itself, not a reference (path prefix → why).
inline const std::vector<std::pair<std::string, std::string>>& wording_allowed() {
  static const std::vector<std::pair<std::string, std::string>> allowed = {};
  return allowed;
}

// Whether a line may break a rule at all: a cheap look before the regular expressions, which
// are slow over the whole tree.
inline bool may_break_wording(const std::string& line) {
  std::string lower(line.size(), ' ');
  std::transform(line.begin(), line.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* word : {"issue", "round", "seed", "shared", "/wor"})
    if (lower.find(word) != std::string::npos) return true;
  for (std::size_t i = line.find('D'); i != std::string::npos; i = line.find('D', i + 1))
    if (i + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[i + 1]))) return true;
  return false;
}

// "path:line: why: the line" for every line of the tree that breaks a rule.
inline std::vector<std::string> check_wording(const Tree& t) {
  std::vector<std::string> out;
  for (const auto& [path, text] : t) {
    bool skip = false;
    for (const auto& [prefix, why] : wording_allowed()) skip = skip || starts_with(path, prefix);
    if (skip) continue;
    std::istringstream lines(text);
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      if (!may_break_wording(line)) continue;
      for (const auto& rule : wording_rules()) {
        std::smatch m;
        if (!std::regex_search(line, m, rule.pattern)) continue;
        out.push_back(path + ":" + std::to_string(n) + ": " + rule.why + " (\"" + m.str(0) + "\")");
        break;
      }
    }
  }
  return out;
}

}  // namespace tomo::house
