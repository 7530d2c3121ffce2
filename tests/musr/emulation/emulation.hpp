// The host emulation of musr's generated CUDA kernels (kernel_shim.hpp): the cases (one fit's
// data, parameters and kernel design each), what a case's emulated run is given and returns, and
// the generated cases' table (generate.cpp writes one source file a case at build time).
#pragma once
#include <string>
#include <vector>

#include "compute/musr/codegen_cuda.hpp"
#include "compute/musr/fit_problem.hpp"

namespace tomo::musr::emu {

struct EmulationInputs {
  std::vector<char> runs;  // CudaTables::runs as bytes (the generated RunInfo)
  int nruns = 0, blocks = 0, slots = 1, num_params = 0;
  std::vector<int> param_map, block_run, param_ptr, param_entry;
  std::vector<double> bins, t, params;
};

struct EmulatedCall {
  double value = 0.0, gradient_value = 0.0;  // out[0] of the value and of the gradient kernel
  std::vector<double> gradient;
  unsigned counter = 0;                   // the last-block ticket after each pass
  bool counter_rearmed[2] = {false, false};
  unsigned long long done[2] = {0, 0};  // the sequence number each pass published (7, 8)
};

// One generated case: its name and its emulated run (in the generated file's namespace).
struct GeneratedCase {
  const char* name;
  EmulatedCall (*run)(const EmulationInputs&);
};
extern const GeneratedCase kGeneratedCases[];
extern const int kGeneratedCaseCount;

}  // namespace tomo::musr::emu
