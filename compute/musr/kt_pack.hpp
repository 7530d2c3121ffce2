// The tables of a fit's `table` nodes (kt_tables.hpp) at given parameters, packed for a GPU
// kernel: one array of doubles and, per run and table slot, where its table lies. Built on the
// host before each launch (the cache makes a repeated parameter set cheap), read by the
// generated mu_tab helpers (codegen_tables.hpp).
#pragma once
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compute/musr/fit_problem.hpp"

namespace tomo::musr {

// One table as the kernels read it: values at [off, off + n), with a gradient the differences
// by argument j at [off + (1 + j)·n, off + (2 + j)·n); sampled every dt µs. 24 bytes, the
// generated `MuTab` (CUDA) layout.
struct TableInfo {
  long long off = 0;
  int n = 1, pad = 0;
  double dt = 1.0;
};

// The most table nodes of any run's program (0: the fit needs no tables).
int max_tables(const FitData& data);

struct TablePack {
  std::vector<double> values;
  std::vector<TableInfo> info;  // run r's table s at info[r·per_run + s]
  int per_run = 0;
  // The runs' evaluators, kept between calls for the FitData last packed (the same object,
  // unchanged: a backend packs the fit it uploaded at every call).
  const FitData* bound = nullptr;
  std::vector<std::unique_ptr<ProgramEvaluator>> evaluators;
};
// Fills `out` for every run at `params` (with the differences when `gradient`). Tables shared by
// runs (same kind and arguments) are stored once.
void pack_tables(const FitData& data, std::span<const double> params, bool gradient, TablePack& out);

}  // namespace tomo::musr
