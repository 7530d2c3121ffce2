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

// The run table the kernels read (layout shared with the generated `RunInfo`).
struct CudaRunInfo {
  long long offset, count;
  int first_block, blocks, affine, kind;
  double t0, dt, scale;
  int pmap, pad;
};

// The kernel designs bench_musr compares side by side (docs/musr.md, Performance).
enum class CudaKernelVersion {
  // 8 blocks of 256 threads an SM, one bin a thread per step (scalar loads), IEEE functions,
  // a double accumulator per bin.
  v1,
  // As many blocks as fit on the device at once (launch bounds), 4 bins a thread per step from
  // one 16-byte load (the next step's load issued before this step's arithmetic; runs padded to
  // 4 bins), divisions by parameters as hoisted reciprocals, float partial sums of 4 bins, and,
  // in float with fast_math, __expf/__sinf/__cosf. The last block publishes the result with a
  // sequence number in mapped host memory, so the host can poll it instead of a stream wait.
  v2,
};
// The resident (persistent) kernel's ways of hearing about a call (docs/musr.md, Round three).
enum class CudaResident { none, poll_one, poll_all };
// Its commands (CudaResidentCtl::cmd) and control words.
inline constexpr unsigned long long kResidentValue = 0, kResidentGradient = 1, kResidentStop = 2;
// Host → device, in mapped pinned host memory: u64 words [seq, cmd, params as double bits × NP].
// The host writes cmd and the parameters, a release fence, then seq (one more than the last).
inline constexpr int kResidentCtlHeader = 2;
// Device state (device memory, zeroed before each launch): u64 words [bcast, cmd, t_cmd, exit,
// params × NP]: poll_one's broadcast of the command, the command's arrival time (globaltimer
// ns), the idle-exit flag, the parameters copied by block 0.
inline constexpr int kResidentStateHeader = 4;
// Device → host (mapped): u64 words [seq of the last published result, idle exit (1 when the
// kernel ended by itself), device ns of the last call (arrival of the command → publish)].
inline constexpr int kResidentDoneWords = 4;

// lean.head's BlockInfo: offset (i64), t0, dt, scale (f64), count, kind, affine, g_lo, g_hi,
// run (i32), then pm[CudaSource::block_pm]; cuda_tables writes it at these byte offsets.
inline constexpr int kCudaBlockInfoFieldBytes = 56;

// Round four's levers on a v2 call's fixed cost (docs/musr.md, Round four), each selectable.
struct CudaLean {
  // Each block's run fields, group range and parameter map in one table entry of `block_run`
  // (`BlockInfo`, cuda_tables): one load instead of block_run → runs → param_map and no 64-bit
  // division; the block's first Pack is loaded before the parameters are read; the step factors
  // of float kernels by float functions (Stepping::float_setup); NP rounded up to 8, not 64.
  bool head = false;
  // Full Packs (all but a run's last) without a test of the run's end at every bin.
  bool packs = false;
  // The last block sums the statistic over every block's partial at once (each thread a few,
  // then one block reduction) instead of a warp per run and a serial sum over runs; in the
  // value kernel thread 0 alone fences and publishes.
  bool tail = false;
  // Packs of 8 bins instead of 4 (runs padded to 8): a Pack's first bin, which evaluates the
  // stepped functions in full, comes half as often; the stepping rounds over 7 steps, not 3.
  bool wide = false;
  bool any() const { return head || packs || tail || wide; }
};

struct CudaCodegenOptions {
  bool single_precision = false;
  CudaKernelVersion version = CudaKernelVersion::v2;
  bool fast_math = true;  // v2 float only
  // v2 with y alone (poisson_errors): bins stored as 16-bit counts where counts16_fit(data),
  // half the bytes a call reads (the bound of a χ² call); else the real type as before.
  bool counts16 = false;
  // v2: exp/cos/sin of polynomials in t stepped from bin to bin within a Pack (Stepping in
  // codegen_common.hpp) where every run's times are evenly spaced; else ignored.
  bool step = false;
  // v2: also the resident kernel `musr_persist` (below): none, one block polls host memory and
  // broadcasts through device memory, or every block polls host memory.
  CudaResident resident = CudaResident::none;
  CudaLean lean{};  // v2 only
};

struct CudaSource {
  std::string text;
  std::string value_kernel = "musr_value";  // extern "C" names
  std::string gradient_kernel = "musr_gradient";
  int slots = 0;  // 1 + max_slots(data): values per block in the gradient kernel's partials
  int np = 0;     // length of the by-value parameter array (≥ num_params)
  bool y_only = false;  // bins hold y alone (1/σ² derived in the kernel), else (y, 1/σ²) pairs
  bool counts16 = false;  // bins are unsigned 16-bit counts (`bin_t`), else the real type
  CudaKernelVersion version = CudaKernelVersion::v1;
  int group = 1;       // bins a thread reads at once; runs start at multiples of it (v2: 4)
  int min_blocks = 0;  // v2: blocks of kCudaBlockThreads an SM is sized for (__launch_bounds__)
  std::vector<std::string> nvrtc_options;  // besides the architecture and the defaults
  bool stepped = false;  // the v2 kernels step exp/cos/sin within a Pack (options.step, runs affine)
  std::string resident_kernel;  // "musr_persist" when options.resident != none, else empty
  CudaLean lean{};     // the levers in effect (v2 only)
  int block_ints = 1;  // ints of `block_run` a block: 1 (its run) or, with lean.head, a BlockInfo
  int block_pm = 0;    // lean.head: parameter-map entries in a BlockInfo
};

// Kernels (extern "C", 256 threads a block, one run per block, one pass over the bins):
//   musr_value / musr_gradient(Args a, runs, nruns, param_map, block_run, yw, tarr, partials, runsum,
//                              param_ptr, param_entry, counter, out)
// `Args` holds the parameter vector by value; runs of one theory shape share one `case` and
// read their parameters through param_map (TheoryCases). Each block reduces its bins (warp shuffles, then
// shared memory) into `partials` (NS a block); the last block to finish (atomic ticket) sums
// them per run into `runsum` (a warp per run), then out[0] (the statistic) and out[1 + i]
// (∂/∂params[i], through param_scatter()), in a fixed order, and rearms the ticket: one launch
// per call, no per-call allocation or memset. Throws InputError when the fit has more than
// kCudaMaxInlineParams parameters or a run more than 255 gradient slots.
CudaSource cuda_chi2_source(const FitData& data, bool single_precision);
// The same kernels in the design `options.version`; v2 kernels take two more arguments,
//   (..., out, unsigned long long* done, unsigned long long seq):
// after writing out, the last block stores seq into *done (system-scope fence first; null: none).
CudaSource cuda_chi2_source(const FitData& data, const CudaCodegenOptions& options);
// The resident kernel (options.resident, v2 only; launched cooperatively, one block per table
// block, all co-resident):
//   musr_persist(const u64* ctl, u64* state, u64 seen, u64 idle_ns, int npar, runs, nruns,
//                param_map, block_run, bins, tarr, partials, runsum, param_ptr, param_entry,
//                counter, out, u64* done)
// waits for ctl's seq to pass `seen`, runs the value or gradient pass of musr_value /
// musr_gradient on the parameters of ctl (npar of them), the last block writes out, fences at
// system scope and stores seq into done[0] (device ns into done[2]); kResidentStop ends it, and
// so does idle_ns without a command (done[1] = 1, state's exit flag for the other blocks).

// True when no bin needs its σ stored: max-likelihood, or every σ follows musrfit's Poisson rule
// for its run's scale n (σ² = y/n, or 1/n² for an empty bin, so 1/σ² = n/y or n²). The kernels
// then read y alone: half the bytes of (y, 1/σ²), and a χ² evaluation is bound by those bytes.
bool poisson_errors(const FitData& data);
// True when every bin's y is an integer count in [0, 65535], so 16-bit storage is exact.
bool counts16_fit(const FitData& data);

// Everything the kernels read besides the bins and parameters, built on the host: the run table,
// each block's run, the parameter maps and the gradient scatter (padded to NP rows).
struct CudaTables {
  std::vector<CudaRunInfo> runs;  // offsets in bins of the device arrays (multiples of src.group)
  // block_run: src.block_ints ints a block (its run, or with lean.head its BlockInfo)
  std::vector<int> block_run, param_map, param_ptr, param_entry;
  int blocks = 0;
  long long device_bins = 0;  // length of the device arrays in bins (runs padded to src.group)
  bool uneven = false;  // some run's times are read from the t array
};
// About 8 blocks of 256 threads per SM of a device with `sms` multiprocessors, ≥ 4 bins a thread.
long long cuda_bins_per_block(const FitData& data, int sms);
// v2: at most `resident` blocks in all (one wave), ≥ 4 bins a thread.
long long cuda_bins_per_block_v2(const FitData& data, int resident);
CudaTables cuda_tables(const FitData& data, const CudaSource& src, long long bins_per_block);

}  // namespace tomo::musr
