// A whole file as text, for tests that compare what a run wrote (or left alone) with what they
// expect; "" when the file cannot be read.
#pragma once
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tomo::test {

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace tomo::test
