// One line of an msr block as the reader sees it: its tokens, and the file and line number every
// error names (one line, "file:LINE: what"). Shared by the block parsers of the msr reader.
#pragma once
#include <charconv>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/musr/quoted_text.hpp"

namespace tomo::musr::msr_line {

inline std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream is(s);
  for (std::string w; is >> w;) out.push_back(w);
  return out;
}

inline std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class LineContext {
 public:
  LineContext(const std::string& where, int line) : where_(where), line_(line) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(where_ + ":" + std::to_string(line_) + ": " + tidy_message(what));
  }
  double number(const std::string& tok, const char* what) const {
    double v = 0.0;
    auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (ec != std::errc() || p != tok.data() + tok.size() || !std::isfinite(v))
      fail(std::string(what) + ": '" + tok + "' is not a finite number");
    return v;
  }
  int integer(const std::string& tok, const char* what, int min = 0) const {
    int v = 0;
    auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (ec != std::errc() || p != tok.data() + tok.size()) fail(std::string(what) + ": '" + tok + "' is not an integer");
    if (v < min) fail(std::string(what) + ": '" + tok + "' must be ≥ " + std::to_string(min));
    return v;
  }
  int line() const { return line_; }
  const std::string& where() const { return where_; }

 private:
  const std::string& where_;
  int line_;
};

}  // namespace tomo::musr::msr_line
