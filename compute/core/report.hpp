// The JSON run report (report.json): problem, backend, devices, resolved scene,
// timings per stage and metrics. Timings are wall-clock milliseconds. "stages" splits the
// run's wall time into exclusive stages (compute/core/stages.hpp) that add up to it.
#pragma once
#include <chrono>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "compute/core/stages.hpp"

namespace tomo {

class RunReport {
 public:
  RunReport();
  nlohmann::json& json() { return j_; }
  const nlohmann::json& json() const { return j_; }

  void set(const std::string& key, nlohmann::json value) { j_[key] = std::move(value); }
  // Adds to the stage's total (a stage run each iteration accumulates) and counts calls. On the
  // thread that began the stages, `ms` (just ended) also counts to the name's stage.
  void add_timing(const std::string& stage, double ms);
  void set_metric(const std::string& name, double value);
  void add_device(const std::string& description);

  class Timer {
   public:
    // A timing whose name belongs to a stage (stage_of_timing) is also that stage's scope.
    Timer(RunReport& r, std::string stage)
        : r_(r), stage_(std::move(stage)), in_stage_(r.stages_.enter(stage_of_timing(stage_))), t0_(clock::now()) {}
    ~Timer() {
      r_.record_timing(stage_, elapsed_ms());
      if (in_stage_) r_.stages_.leave();
    }
    double elapsed_ms() const { return std::chrono::duration<double, std::milli>(clock::now() - t0_).count(); }
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;
   private:
    using clock = std::chrono::steady_clock;
    RunReport& r_;
    std::string stage_;
    bool in_stage_;
    clock::time_point t0_;
  };
  Timer time(std::string stage) { return Timer(*this, std::move(stage)); }

  // A scope that counts to one of kStageNames without a timings_ms entry of its own.
  class StageScope {
   public:
    StageScope(RunReport& r, std::string_view stage) : r_(r), in_(r.stages_.enter(stage)) {}
    ~StageScope() {
      if (in_) r_.stages_.leave();
    }
    StageScope(const StageScope&) = delete;
    StageScope& operator=(const StageScope&) = delete;
   private:
    RunReport& r_;
    bool in_;
  };
  StageScope stage(std::string_view name) { return StageScope(*this, name); }
  // The stage accounting starts on this thread (startup: wall_start … now) and ends with
  // finish_stages, which stores report.json "stages" ({"wall_ms", "ms": {stage: ms}}).
  void begin_stages(std::chrono::steady_clock::time_point wall_start) { stages_.begin(wall_start); }
  void finish_stages() {
    if (stages_.active()) j_["stages"] = stages_.table();
  }

  void write(const std::filesystem::path& path) const;  // atomic

 private:
  void record_timing(const std::string& stage, double ms);  // timings_ms alone
  nlohmann::json j_;
  StageClock stages_;
};

}  // namespace tomo
