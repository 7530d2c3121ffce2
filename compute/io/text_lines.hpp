// Bounded line reading for the readers of users' text files (strip, glpet list-mode, safir's
// crystal map): a file without newlines (/dev/zero, a binary file) cannot grow a line without
// bound. Callers refuse lines longer than their limit and lines holding NUL bytes.
#pragma once
#include <cstddef>
#include <istream>
#include <string>

namespace tomo {

// getline that stops after max + 1 bytes; false at the end of the input with nothing read.
inline bool read_bounded_line(std::istream& in, std::string& line, std::size_t max) {
  line.clear();
  for (int c; (c = in.get()) != EOF;) {
    if (c == '\n') return true;
    line.push_back(static_cast<char>(c));
    if (line.size() > max) return true;
  }
  return !line.empty();
}

}  // namespace tomo
