// The interrupt guard: signals are taken by one watcher thread through sigwait(), so no
// code runs in a signal handler; the rest of the program sees a flag.
#include "compute/core/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

namespace tomo {
namespace {

constexpr auto kGrace = std::chrono::milliseconds(800);  // then the watcher ends the process

std::atomic<int> g_signal{0};
std::recursive_mutex g_mutex;  // guards dirs(); held by a CleanupHold (which may register itself)
std::map<int, std::pair<std::filesystem::path, CleanupKind>>& dirs() {
  static std::map<int, std::pair<std::filesystem::path, CleanupKind>> d;
  return d;
}
bool g_published = false;  // guarded by g_mutex
int g_next_id = 1;

sigset_t guarded_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

[[noreturn]] void end_process(int sig) {
  std::lock_guard lock(g_mutex);  // waits for a commit in progress
  for (const auto& [id, entry] : dirs()) {
    std::error_code ec;
    if (entry.second == CleanupKind::Tree) std::filesystem::remove_all(entry.first, ec);
    else std::filesystem::remove(entry.first, ec);  // fails, as it should, unless empty
  }
  std::fflush(nullptr);
  ::_exit(128 + sig);
}

std::atomic<bool> g_notice{true};

void watch(sigset_t set) {
  int sig = 0;
  if (sigwait(&set, &sig) != 0) return;
  {
    // Taken between commits, never during one: either the commit sees the flag and publishes
    // nothing, or the results are in place and there is nothing left to interrupt.
    std::lock_guard lock(g_mutex);
    if (!g_published) {
      g_signal.store(sig);
      if (g_notice.load()) std::fprintf(stderr, "\ntomoraster: interrupted (signal %d): stopping\n", sig);
    }
  }
  // The program polls the flag and unwinds (its destructors clean up). If it is still running
  // after the grace period, or a second signal comes, end it here.
  std::thread([sig] {
    std::this_thread::sleep_for(kGrace);
    end_process(sig);
  }).detach();
  int again = 0;
  if (sigwait(&set, &again) == 0) end_process(again);
}

}  // namespace

Interrupted::Interrupted(int signal)
    : Error("interrupted by signal " + std::to_string(signal)), signal_(signal) {}

void install_interrupt_guard() {
  static std::once_flag once;
  std::call_once(once, [] {
    sigset_t set = guarded_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);  // inherited by every thread created later
    std::thread(watch, set).detach();
  });
}

void set_interrupt_notice(bool on) { g_notice.store(on); }

int interrupt_signal() { return g_signal.load(std::memory_order_relaxed); }
void request_interrupt(int signal) { g_signal.store(signal); }
void clear_interrupt() { g_signal.store(0); }

void throw_if_interrupted() {
  if (const int s = interrupt_signal()) throw Interrupted(s);
}

int register_cleanup(const std::filesystem::path& dir, CleanupKind kind) {
  std::lock_guard lock(g_mutex);
  const int id = g_next_id++;
  dirs()[id] = {dir, kind};
  return id;
}

void set_results_published(bool published) {
  std::lock_guard lock(g_mutex);
  g_published = published;
}

void unregister_cleanup(int id) {
  std::lock_guard lock(g_mutex);
  dirs().erase(id);
}

CleanupHold::CleanupHold() { g_mutex.lock(); }
CleanupHold::~CleanupHold() { g_mutex.unlock(); }

}  // namespace tomo
