// A source tree as the house checks see it: path from the repository root → file text.
// The checks are functions over a Tree, so a test can hand them a small made-up tree that
// lacks one thing and assert they notice, and then the real tree, read from disk.
#pragma once
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace tomo::house {

using Tree = std::map<std::string, std::string>;

inline bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Files directly in `folder` (no sub-folders), e.g. files_in(t, "compute/strip").
inline std::vector<std::string> files_in(const Tree& t, const std::string& folder) {
  std::vector<std::string> out;
  const std::string prefix = folder + "/";
  for (auto it = t.lower_bound(prefix); it != t.end() && starts_with(it->first, prefix); ++it)
    if (it->first.find('/', prefix.size()) == std::string::npos) out.push_back(it->first);
  return out;
}

// Files anywhere under `folder`.
inline std::vector<std::string> files_under(const Tree& t, const std::string& folder) {
  std::vector<std::string> out;
  const std::string prefix = folder + "/";
  for (auto it = t.lower_bound(prefix); it != t.end() && starts_with(it->first, prefix); ++it) out.push_back(it->first);
  return out;
}

inline std::string text_of(const Tree& t, const std::string& path) {
  const auto it = t.find(path);
  return it == t.end() ? std::string{} : it->second;
}

inline std::string file_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

inline bool is_source(const std::string& path) {
  for (const char* ext : {".cpp", ".hpp", ".cu", ".cuh", ".h"})
    if (path.ends_with(ext)) return true;
  return false;
}

// The text with // and /* */ comments blanked (string literals are left alone: good enough
// for the declarations and calls the checks look for).
inline std::string without_comments(const std::string& text) {
  std::string out = text;
  for (std::size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == '"') {  // skip a string literal so "//" inside it stays
      for (++i; i < out.size() && out[i] != '"' && out[i] != '\n'; ++i)
        if (out[i] == '\\') ++i;
      continue;
    }
    if (out[i] == '/' && out[i + 1] == '/') {
      for (; i < out.size() && out[i] != '\n'; ++i) out[i] = ' ';
    } else if (out[i] == '/' && out[i + 1] == '*') {
      for (; i + 1 < out.size() && !(out[i] == '*' && out[i + 1] == '/'); ++i)
        if (out[i] != '\n') out[i] = ' ';
      if (i + 1 < out.size()) out[i] = out[i + 1] = ' ';
    }
  }
  return out;
}

// The text between the brace that opens at or after `from` and its matching close ("" if none).
inline std::string braced_body(const std::string& text, std::size_t from) {
  const std::size_t open = text.find('{', from);
  if (open == std::string::npos) return {};
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == '{') ++depth;
    if (text[i] == '}' && --depth == 0) return text.substr(open + 1, i - open - 1);
  }
  return {};
}

inline std::set<std::string> captures(const std::string& text, const std::regex& re, int group = 1) {
  std::set<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) out.insert((*it)[group]);
  return out;
}

inline std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "  " + x + "\n";
  return s;
}

// The text files of the repository the checks read: sources, tests, docs, scripts, scenes.
// Binary data (images, fuzz findings) and third_party/ are not read.
inline Tree read_tree(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  static const std::vector<std::string> kFolders = {"compute", "renderer", "cuda", "shaders", "apps", "bench",  "tests",
                                                    "docs",    "python",   "scenes", "examples", "tools", "cmake", ".ci"};
  static const std::vector<std::string> kText = {".cpp", ".hpp", ".cu",   ".cuh",  ".h",  ".md",   ".txt", ".toml",
                                                 ".py",  ".glsl", ".sh",  ".cmake", ".in", ".yml", ".supp"};
  auto text_file = [&](const fs::path& p) {
    const std::string name = p.filename().string();
    if (p.parent_path().filename() == ".ci") return true;  // .ci/run: a script without extension
    return std::any_of(kText.begin(), kText.end(), [&](const std::string& e) { return name.ends_with(e); });
  };
  auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  };
  Tree t;
  for (const char* top : {"CMakeLists.txt", "README.md", "pyproject.toml"})
    if (fs::is_regular_file(root / top)) t[top] = read(root / top);
  for (const auto& folder : kFolders) {
    if (!fs::is_directory(root / folder)) continue;
    for (auto it = fs::recursive_directory_iterator(root / folder); it != fs::recursive_directory_iterator(); ++it) {
      const std::string rel = fs::relative(it->path(), root).generic_string();
      const std::string name = it->path().filename().string();
      if (it->is_directory() && (name.starts_with(".") || name == "__pycache__" || rel == "tests/fuzz/regressions")) {
        it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file() && text_file(it->path())) t[rel] = read(it->path());
    }
  }
  return t;
}

}  // namespace tomo::house
