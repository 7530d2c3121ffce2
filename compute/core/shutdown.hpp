// Hooks run once before the process exits (end of main, end of a test run), for
// GPU state that must be released while its driver is still loaded.
#pragma once
#include <functional>

namespace tomo {

void add_shutdown_hook(std::function<void()> hook);
void run_shutdown_hooks();  // runs each hook once, newest first; exceptions are logged

struct ShutdownRegistrar {
  explicit ShutdownRegistrar(std::function<void()> hook) { add_shutdown_hook(std::move(hook)); }
};

}  // namespace tomo
