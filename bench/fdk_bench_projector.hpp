// bench_fdk --projector (fdk_bench_projector.cpp): the cone-beam projector pair and one SIRT and
// one CGLS iteration, cuda beside cpu, optionally dumping the arrays for the ASTRA side by side.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace tomo::fdk::bench_projector {

struct Options {
  int L = 256, views = 360, sx = 512, sy = 512;
  int reps = 5;        // timed runs (median), and iterations timed per algorithm
  int cpu_views = 4;   // the cpu rows run this many views and are scaled to all
  std::string dump;    // folder for the .npy files; empty: none
  bool sweep = true;   // block shapes of the ray-driven kernels
  bool sweep_only = false;  // only the block shapes (no cpu rows, no timings of the settings)
  std::string settings;     // cuda settings to time ("hardware_one,exact_half", ...); empty: all four
  bool exact_transpose = true;  // time Aᵀ and CGLS with Aᵀ (atomics: slow at RabbitCT's size)
};

// Runs the rows, prints them and adds them to `out`; returns the exit status.
int run(const Options& o, nlohmann::json& out);

}  // namespace tomo::fdk::bench_projector
