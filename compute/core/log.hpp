// Minimal leveled logging to stderr; GL debug output and progress go through here.
#pragma once
#include <sstream>
#include <string>
#include <string_view>

namespace tomo {

enum class LogLevel { Debug = 0, Info = 1, Warn = 2, Error = 3, Quiet = 4 };

void set_log_level(LogLevel level);
LogLevel log_level();
void log_message(LogLevel level, std::string_view text);

template <class... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

template <class... Args>
void log_debug(const Args&... a) { if (log_level() <= LogLevel::Debug) log_message(LogLevel::Debug, str_cat(a...)); }
template <class... Args>
void log_info(const Args&... a) { if (log_level() <= LogLevel::Info) log_message(LogLevel::Info, str_cat(a...)); }
template <class... Args>
void log_warn(const Args&... a) { if (log_level() <= LogLevel::Warn) log_message(LogLevel::Warn, str_cat(a...)); }
template <class... Args>
void log_error(const Args&... a) { if (log_level() <= LogLevel::Error) log_message(LogLevel::Error, str_cat(a...)); }

}  // namespace tomo
