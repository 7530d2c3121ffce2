// A check run on scene text before toml++ parses it. TOML allows characters outside ASCII only
// in strings and comments; toml++ 3.3 (Debian bookworm) reaches __builtin_unreachable (undefined
// behaviour, found by tests/fuzz) on some such characters where it expects whitespace, so they
// are refused here, with their line and column, before the parser sees them.
#pragma once
#include <string>
#include <string_view>

namespace tomo {

// Throws InputError "<source>:<line>:<column>: ..." for a byte >= 0x80 outside strings and comments.
void check_toml_text(std::string_view text, const std::string& source);

}  // namespace tomo
