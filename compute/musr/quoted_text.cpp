// quoted_excerpt and tidy_message (see quoted_text.hpp).
#include "compute/musr/quoted_text.hpp"

#include <cstdio>

namespace tomo::musr {
namespace {

std::string escaped(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// The first kQuotedMaxBytes bytes, never cutting a UTF-8 sequence, and "…" when shortened.
std::string shortened(std::string_view s) {
  if (s.size() <= kQuotedMaxBytes) return std::string(s);
  std::size_t n = kQuotedMaxBytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + "…";
}

}  // namespace

std::string quoted_excerpt(std::string_view text) { return escaped(shortened(text)); }

std::string tidy_message(std::string_view message) {
  std::string out;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t open = message.find('\'', pos);
    const std::size_t close = open == std::string_view::npos ? open : message.find('\'', open + 1);
    if (close == std::string_view::npos) break;
    out += escaped(message.substr(pos, open + 1 - pos));
    out += quoted_excerpt(message.substr(open + 1, close - open - 1));
    out += '\'';
    pos = close + 1;
  }
  out += escaped(message.substr(pos));
  return out;
}

}  // namespace tomo::musr
