// How the fit data's runs reach the generated GPU kernels (CUDA and GLSL alike): runs of the
// same theory shape grouped into one generated case, each run split into blocks with its time
// axis, and the fixed order in which the gradient slots of every run are summed.
#pragma once
#include <string>
#include <vector>

#include "compute/musr/fit_problem.hpp"

namespace tomo::musr {

// Runs whose programs differ only in which parameters they read share one generated case (the
// [Locans2017]'s 16 detectors: one case), read through a per-run parameter map: smaller source, faster
// NVRTC, and one compiled kernel for every fit of the same theory. Case k is emitted from run
// first_run[k]; run r reads its slot s from params[pmap[pmap_offset[r] + s]].
struct TheoryCases {
  std::vector<int> kind_of_run, first_run, pmap_offset, pmap;
};
TheoryCases group_theories(const FitData& data);

// What both GPU backends require of uploaded data; throws InputError naming `who` and the run.
void check_fit_data(const FitData& data, const std::string& who);

// Per-run layout the kernels read at run time (so one compiled kernel serves every data size):
// bins [offset, offset + count) of the concatenated data, blocks [first_block, first_block + blocks).
struct RunLayout {
  long long offset = 0, count = 0;
  int first_block = 0, blocks = 0;
  int kind = 0, pmap = 0;  // TheoryCases: the run's case and parameter-map offset
  bool affine = true;  // t = t0 + k·dt within rounding; else t read from the t array
  double t0 = 0.0, dt = 0.0;
};
// Splits every run into blocks of about `bins_per_block` bins (at least one block per run).
std::vector<RunLayout> plan_layout(const FitData& data, long long bins_per_block);
// True when t[k] equals t[0] + k·dt to 1e-12 of the range (then t0 and dt are set).
bool affine_time(const std::vector<double>& t, double& t0, double& dt);

// (run, slot, parameter) of every gradient slot in run order: the final reduction adds the
// slot sums of every run into their parameters in this fixed order (deterministic).
struct GradientPair {
  int run = 0, slot = 0, param = 0;
};
std::vector<GradientPair> gradient_pairs(const FitData& data);
// Per parameter i, the indices run·ns + 1 + slot of its slots in a table of ns sums per run
// (CSR: entry[ptr[i]] … entry[ptr[i+1] − 1], in run order): the kernels' final scatter.
struct ParamScatter {
  std::vector<int> ptr, entry;
};
ParamScatter param_scatter(const FitData& data, int ns);
// The largest number of slots any run's program has.
int max_slots(const FitData& data);

}  // namespace tomo::musr
