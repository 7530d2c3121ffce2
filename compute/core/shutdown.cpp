#include "compute/core/shutdown.hpp"

#include <exception>
#include <vector>

#include "compute/core/log.hpp"

namespace tomo {
namespace {
std::vector<std::function<void()>>& hooks() {
  static auto* h = new std::vector<std::function<void()>>;
  return *h;
}
}  // namespace

void add_shutdown_hook(std::function<void()> hook) { hooks().push_back(std::move(hook)); }

void run_shutdown_hooks() {
  auto& h = hooks();
  while (!h.empty()) {
    auto hook = std::move(h.back());
    h.pop_back();
    try {
      hook();
    } catch (const std::exception& e) {
      log_warn("shutdown: ", e.what());
    }
  }
}

}  // namespace tomo
