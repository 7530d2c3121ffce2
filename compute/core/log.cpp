#include "compute/core/log.hpp"

#include <atomic>
#include <iostream>
#include <mutex>

namespace tomo {
namespace {
std::atomic<LogLevel> g_level{LogLevel::Info};
std::mutex g_mutex;
}  // namespace

void set_log_level(LogLevel level) { g_level = level; }
LogLevel log_level() { return g_level; }

void log_message(LogLevel level, std::string_view text) {
  static constexpr const char* kTags[] = {"debug", "info", "warning", "error", ""};
  std::lock_guard lock(g_mutex);
  std::cerr << "[" << kTags[static_cast<int>(level)] << "] " << text << '\n';
}

}  // namespace tomo
