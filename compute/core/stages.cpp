// Exclusive stage accounting of a run's wall time (report.json "stages").
#include "compute/core/stages.hpp"

#include <algorithm>

namespace tomo {

namespace {

double ms_between(StageClock::clock::time_point a, StageClock::clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::size_t stage_index(std::string_view stage) {
  return std::size_t(std::find(kStageNames.begin(), kStageNames.end(), stage) - kStageNames.begin());
}

}  // namespace

std::string_view stage_of_timing(std::string_view t) {
  // The first word: up to '.', ':' or '_' ("iterate.cuda.warp", "backproject:cuda", "read_data").
  const std::string_view w = t.substr(0, t.find_first_of(".:_"));
  if (t == "read_data" || w == "read") return "reading";
  if (w == "simulate") return "simulation";
  if (w == "contexts") return "startup";
  if (t.starts_with("filter_setup") || w == "configure" || w == "upload" || w == "prepare" || w == "setup") return "setup";
  if (w == "sensitivity") return "sensitivity";
  if (w == "mlem" || w == "fit" || w == "forward" || t == "back_ratio" || w == "update" || w == "pls" || w == "fbp" || w == "backproject" || w == "iterate" ||
      w == "filter" || w == "iterations" || w == "reconstruct")
    return "iterations";
  if (w == "crosscheck" || w == "operators") return "checks";
  if (w == "write" || w == "writing") return "writing";
  if (stage_index(t) < kStageNames.size()) return kStageNames[stage_index(t)];  // a stage by its own name
  return {};
}

StageClock::StageClock(const StageClock& o) { *this = o; }

StageClock& StageClock::operator=(const StageClock& o) {
  if (this == &o) return *this;
  std::scoped_lock lock(mutex_, o.mutex_);
  started_ = o.started_;
  owner_ = o.owner_;
  wall_start_ = o.wall_start_;
  ms_ = o.ms_;
  open_ = o.open_;
  return *this;
}

void StageClock::begin(clock::time_point wall_start) {
  std::lock_guard lock(mutex_);
  started_ = true;
  ms_ = {};
  open_.clear();
  owner_ = std::this_thread::get_id();
  wall_start_ = wall_start;
  ms_[stage_index("startup")] += std::max(0.0, ms_between(wall_start, clock::now()));
}

bool StageClock::enter(std::string_view stage) {
  std::lock_guard lock(mutex_);
  if (!started_ || std::this_thread::get_id() != owner_) return false;
  const std::size_t i = stage_index(stage);
  if (i >= kStageNames.size()) return false;
  open_.push_back({i, clock::now()});
  return true;
}

void StageClock::leave() {
  std::lock_guard lock(mutex_);
  if (open_.empty()) return;
  const Open o = open_.back();
  open_.pop_back();
  const double elapsed = ms_between(o.t0, clock::now());
  ms_[o.stage] += std::max(0.0, elapsed - o.child_ms);  // the inner scopes counted to their own stages
  if (!open_.empty()) open_.back().child_ms += elapsed;
}

void StageClock::add_closed(std::string_view stage, double ms) {
  std::lock_guard lock(mutex_);
  if (!started_ || !(ms > 0)) return;
  if (std::this_thread::get_id() != owner_ && open_.empty()) return;  // the owner is not waiting in a scope
  const std::size_t i = stage_index(stage);
  if (i >= kStageNames.size()) return;
  ms_[i] += ms;
  if (!open_.empty()) open_.back().child_ms += ms;
}

nlohmann::json StageClock::table() const {
  std::lock_guard lock(mutex_);
  const double wall = ms_between(wall_start_, clock::now());
  nlohmann::json ms = nlohmann::json::object();
  double sum = 0;
  for (std::size_t i = 0; i < kStageNames.size(); ++i) {
    ms[std::string(kStageNames[i])] = ms_[i];
    sum += ms_[i];
  }
  ms["unaccounted"] = wall - sum;
  return {{"wall_ms", wall}, {"ms", ms}};
}

}  // namespace tomo
