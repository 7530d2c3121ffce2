// GL debug output (KHR_debug, core since 4.3) routed to the log. In validation mode
// output is synchronous and the first GL error is kept for check_error() to throw.
#pragma once
#include <optional>
#include <string>

namespace tomo::gl {

void install_debug_output(bool validate);
// The first error message recorded by the callback since the last call, cleared on read.
std::optional<std::string> take_debug_error();

}  // namespace tomo::gl
