// One process-wide lock for FFTW's planner (fftw_plan_* and fftw_destroy_plan are not
// thread-safe, across every module that plans): take it around planning, not execution.
#pragma once
#include <mutex>

namespace tomo {

inline std::mutex& fftw_planner_mutex() {
  static std::mutex m;  // an inline function's static: one object for the whole program
  return m;
}

}  // namespace tomo
