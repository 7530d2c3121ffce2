// CUDA source of the χ² / max-likelihood kernels of one fit, generated from the runs' expression
// programs (value and forward-mode gradient); compiled at run time by NVRTC (cuda/musr/).
#pragma once
#include <string>
#include <vector>

#include "compute/musr/codegen_common.hpp"
#include "compute/musr/fit_problem.hpp"

namespace tomo::musr {

inline constexpr int kCudaBlockThreads = 256;
// Kernel parameters are passed by value (no per-call copy): the CUDA limit of 4 KB leaves room
// for this many doubles beside the pointers.
inline constexpr int kCudaMaxInlineParams = 480;
// Bins a thread reads at once (a `Pack`); each run starts at a multiple of it, padded with zeros.
inline constexpr int kCudaPackBins = 8;

// The run table the kernels read (layout shared with the generated `RunInfo`).
struct CudaRunInfo {
  long long offset, count;
  int first_block, blocks, affine, kind;
  double t0, dt, scale;
  int pmap, pad;
};

// A block's `BlockInfo`: offset (i64), t0, dt, scale (f64), count, kind, affine, g_lo, g_hi,
// run (i32), then pm[CudaSource::block_pm]; cuda_tables writes it at these byte offsets.
inline constexpr int kCudaBlockInfoFieldBytes = 56;

struct CudaSource {
  std::string text;
  std::string value_kernel = "musr_value";  // extern "C" names
  std::string gradient_kernel = "musr_gradient";
  int slots = 0;  // 1 + max_slots(data): values per block in the gradient kernel's partials
  int np = 0;     // length of the by-value parameter array (≥ num_params, a multiple of 8)
  bool y_only = false;  // bins hold y alone (1/σ² derived in the kernel), else (y, 1/σ²) pairs
  int group = kCudaPackBins;  // bins a thread reads at once; runs start at multiples of it
  int min_blocks = 0;  // blocks of kCudaBlockThreads an SM is sized for (__launch_bounds__)
  std::vector<std::string> nvrtc_options;  // besides the architecture and the defaults
  bool stepped = false;  // exp/cos/sin stepped within a Pack (every run's times evenly spaced)
  int block_ints = 1;    // ints of `block_run` a block: one BlockInfo
  int block_pm = 0;      // parameter-map entries in a BlockInfo
  // Table nodes a run at most (kt_tables.hpp): with any, both kernels take two more arguments
  // after `seq`, `const double* tabs, const MuTab* tinfo` (kt_pack.hpp), and run r's table s
  // is tinfo[r·tables + s].
  int tables = 0;
};

// Kernels (extern "C", 256 threads a block, one run per block, one pass over the bins):
//   musr_value / musr_gradient(Args a, runs, nruns, param_map, block_run, bins, tarr, partials,
//                              runsum, param_ptr, param_entry, counter, out,
//                              unsigned long long* done, unsigned long long seq)
// `Args` holds the parameter vector by value; runs of one theory shape share one `case` and
// read their parameters through the block's BlockInfo (TheoryCases). Each block reads its
// Packs of 8 bins (one 16-byte or wider load a thread per step, the next one issued before this
// one's arithmetic), evaluates the theory with hoisted reciprocals and, where every run's times
// are evenly spaced, exp/cos/sin stepped from bin to bin (Stepping); float kernels use
// __expf/__sinf/__cosf/__fdividef with denormals flushed. Each block reduces its bins (warp
// shuffles, then shared memory) into `partials` (NS a block); the last block to finish (atomic
// ticket) sums the statistic over every block, the gradient per run into `runsum` (a warp per
// run), then out[1 + i] (∂/∂params[i], through param_scatter()), in a fixed order, and rearms
// the ticket. After writing out it stores seq into *done (system-scope fence first; null: none);
// the value kernel's thread 0 alone does so. Throws InputError when the fit has more than
// kCudaMaxInlineParams parameters, more than 2^30 bins or a run more than 255 gradient slots.
CudaSource cuda_chi2_source(const FitData& data, bool single_precision);

// True when no bin needs its σ stored: max-likelihood, or every σ follows musrfit's Poisson rule
// for its run's scale n (σ² = y/n, or 1/n³ for an empty bin, so 1/σ² = n/y or n³). The kernels
// then read y alone: half the bytes of (y, 1/σ²), and a χ² evaluation is bound by those bytes.
bool poisson_errors(const FitData& data);

// Everything the kernels read besides the bins and parameters, built on the host: the run table,
// each block's BlockInfo, the parameter maps and the gradient scatter (padded to NP rows).
struct CudaTables {
  std::vector<CudaRunInfo> runs;  // offsets in bins of the device arrays (multiples of src.group)
  std::vector<int> block_run;     // src.block_ints ints a block (its BlockInfo)
  std::vector<int> param_map, param_ptr, param_entry;
  int blocks = 0;
  long long device_bins = 0;  // length of the device arrays in bins (runs padded to src.group)
  bool uneven = false;  // some run's times are read from the t array
};
// At most `resident` blocks in all (one wave of the blocks the device holds at once), ≥ 4 bins a
// thread.
long long cuda_bins_per_block(const FitData& data, int resident);
CudaTables cuda_tables(const FitData& data, const CudaSource& src, long long bins_per_block);

}  // namespace tomo::musr
