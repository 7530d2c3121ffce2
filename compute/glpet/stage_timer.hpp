// Adds the time of one stage of a glpet reconstruction (a pass, after the backend's queued work)
// to the run report; nothing without a report. Used by the ML-EM driver and the pair subsets.
#pragma once
#include <chrono>

#include "compute/core/report.hpp"
#include "compute/glpet/projector.hpp"

namespace tomo::glpet {

class StageTimer {
 public:
  StageTimer(Projector& op, RunReport* r, const char* stage) : op_(op), r_(r), stage_(stage), t0_(clock::now()) {}
  ~StageTimer() {
    if (!r_) return;
    op_.synchronize();
    r_->add_timing(stage_, std::chrono::duration<double, std::milli>(clock::now() - t0_).count());
  }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  using clock = std::chrono::steady_clock;
  Projector& op_;
  RunReport* r_;
  const char* stage_;
  clock::time_point t0_;
};

}  // namespace tomo::glpet
