// bench_fdk --pipeline (fdk_bench_pipeline.cpp): where the cuda FDK pipeline's time goes, stage by
// stage with CUDA events, for the cuFFT filter's fused callbacks against its separate kernels.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace tomo::fdk::bench_pipeline {

struct Options {
  std::string cases = "256,rabbit";  // 256: 256³ from 360 views of 512²; rabbit: 512³ from 496 of 1248×960
  int reps = 5;                      // timed runs (median) after one warm-up
  int chunk = 32;                    // projections per pipeline step
};

// Runs the stages, prints them and adds them to `out`; returns the exit status.
int run(const Options& o, nlohmann::json& out);

}  // namespace tomo::fdk::bench_pipeline
