// Time to image: a run's wall time split into the stages it was spent in (report.json "stages").
// The stages are exclusive: a timed scope inside another counts to the inner stage only, so the
// stages and the "unaccounted" rest add up to the wall time exactly. Scopes count on the thread
// that began the accounting; another thread's timing counts while that thread waits in a scope
// (rank 0 of a team timing its passes: one thread does, so its intervals do not overlap).
#pragma once
#include <array>
#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace tomo {

// The stages in the order a run passes them (docs/multigpu.md, "Time to image").
inline constexpr std::array<std::string_view, 8> kStageNames = {
    "startup",      // process start, options, scene, device contexts
    "reading",      // measured data and reference files
    "simulation",   // Monte-Carlo or model data
    "setup",        // system set-up and its cache, uploads, filters
    "sensitivity",  // the sensitivity image Aᵀ1
    "iterations",   // the reconstruction proper (iterations, FBP/FDK, fits)
    "checks",       // cross-checks against other backends inside a run
    "writing"};     // images, previews, tables

// The stage a timing name of report.json's timings_ms belongs to ("" for none: "total" and
// unknown names). Names are matched on their first word ("write_rct" → writing).
std::string_view stage_of_timing(std::string_view timing);

class StageClock {
 public:
  using clock = std::chrono::steady_clock;
  // Starts the accounting on this thread: startup is wall_start … now.
  StageClock() = default;
  StageClock(const StageClock& o);  // the tables (a report is returned by value)
  StageClock& operator=(const StageClock& o);
  void begin(clock::time_point wall_start);
  bool active() const { return started_; }
  // A scope of `stage` on the owning thread; returns false (and does nothing) elsewhere, when not
  // begun, or for an empty stage. Every enter that returned true gets one leave.
  bool enter(std::string_view stage);
  void leave();
  // `ms` that just ended, timed without a scope, on the owning thread or on another while the owner
  // is in a scope: counts to `stage` and not to the scope open around it. Otherwise nothing.
  void add_closed(std::string_view stage, double ms);
  // {"wall_ms": W, "ms": {stage: ms…, "unaccounted": W − Σ}}; the stages table's sum is W.
  nlohmann::json table() const;

 private:
  struct Open {
    std::size_t stage;
    clock::time_point t0;
    double child_ms = 0;
  };
  mutable std::mutex mutex_;  // add_closed may come from a rank's thread
  bool started_ = false;
  std::thread::id owner_;
  clock::time_point wall_start_;
  std::array<double, kStageNames.size()> ms_{};
  std::vector<Open> open_;
};

}  // namespace tomo
