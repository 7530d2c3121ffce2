// msr text inside an error line: control bytes (ESC, NUL, …) escaped as \xNN so they never
// reach the terminal raw, and every '…'-quoted span longer than 40 bytes shortened to its first
// 40 and "…", so a 300-digit number or a megabyte expression stays one readable line.
#pragma once
#include <string>
#include <string_view>

namespace tomo::musr {

inline constexpr std::size_t kQuotedMaxBytes = 40;

// `text` escaped and shortened as above, for use between quotes.
std::string quoted_excerpt(std::string_view text);

// A whole message: control bytes escaped, each span between a pair of single quotes shortened.
std::string tidy_message(std::string_view message);

}  // namespace tomo::musr
