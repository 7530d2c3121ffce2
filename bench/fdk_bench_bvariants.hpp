// bench_fdk --b-variants (fdk_bench_bvariants.cpp): candidate kernels of the projector pair's
// voxel-driven B side by side in one process, each checked against the product's B.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace tomo::fdk::bench_bvariants {

struct Options {
  std::string cases = "256,rabbit";  // 256: 256³ from 360 views of 512²; rabbit: 512³ from 496 of 1248×960
  int reps = 3;                      // timed runs (median) after one warm-up
  int sweep_top = 3;                 // block shapes tried on this many of the fastest
  std::string only;                  // comma-separated name parts: only variants naming one (empty: all)
  std::string dump;                  // folder for ASTRA's side by side (astra_bp_variants.py); empty: none
};

// Runs the rows, prints them and adds them to `out`; returns the exit status.
int run(const Options& o, nlohmann::json& out);

}  // namespace tomo::fdk::bench_bvariants
