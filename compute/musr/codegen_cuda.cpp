// Generates the CUDA source of compute/musr/codegen_cuda.hpp: per theory shape one `case` with
// the model's invariant statements hoisted out of the bin loop, the statistic per bin, then one
// block reduction and the last-block final sum. The source includes no header, so NVRTC needs no
// toolkit headers at run time (the GPU machine's image may have none).
#include "compute/musr/codegen_cuda.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/musr/codegen_tables.hpp"
#include "compute/musr/kt_pack.hpp"
#include "compute/musr/run_layout.hpp"

namespace tomo::musr {
namespace {

// The block's groups of PACK bins [g_lo, g_hi), one Pack a thread per step, the next Pack loaded
// before this one's arithmetic; the terms summed in `part` (the real type), then added to the
// double accumulators. The Pack pointer and the first Pack were set up before the `switch`; the
// parameter map is the block's own (BlockInfo::pm). Every Pack but a run's last is full and is
// evaluated without a test of the run's end at every bin.
std::string run_case(std::size_t kind, const RunBins& run, const Dialect& d, Statistic s, bool gradient, const CudaSource& src) {
  const std::string prefix = str_cat("k", kind, "_");
  // mu_keep: the per-block values stay in registers (the compiler would otherwise convert the
  // double parameters again in every bin to save registers).
  Stepping stepping;  // a Pack's bins j = 0…PACK − 1 are consecutive, R.dt apart
  stepping.float_setup = true;
  const ModelCode m = emit_model(run.model, d, gradient, prefix,
                                 [](int, int slot) { return str_cat("mu_keep(real(a.p[pm[", slot, "]]))"); }, "t",
                                 src.stepped ? &stepping : nullptr);
  const bool f = d.single();
  std::string out = str_cat("      case ", kind, ": {\n        const int* pm = R.pm;\n");
  out += m.invariant;
  // Float times as t0 + k·(dt_hi + dt_lo): the split keeps dt's rounding from scaling the axis.
  out += f ? "        const real t0r = mu_keep(real(R.t0)), dth = mu_keep(real(R.dt)), dtl = mu_keep(real(R.dt - (double)dth));\n" : "";
  out += m.step_setup;
  out += "        const real sc = mu_keep(real(R.scale)), sc3 = mu_keep(real(R.scale * R.scale * R.scale));\n";
  out += "        for (; g < g_hi; g += BLOCK) {\n          Pack nxt = cur;\n          if (g + BLOCK < g_hi) nxt = P[g + BLOCK];\n";
  out += "          real part[NS];\n#pragma unroll\n          for (int j = 0; j < NS; ++j) part[j] = real(0);\n";
  out += m.step_state;
  std::string bin = "            real2 yw;\n            yw.x = real(cur.v[W * j]);\n";
  if (src.y_only) {
    const std::string w = f ? (d.fast_math ? "__fdividef(sc, yw.x)" : "sc / yw.x") : "sc * __drcp_rn(yw.x)";
    bin += "            yw.y = yw.x > real(0) ? " + w + " : sc3;\n";
  } else {
    bin += "            yw.y = cur.v[W * j + 1];\n";
  }
  bin += f ? "            const real t = R.affine ? fmaf(real(k), dth, fmaf(real(k), dtl, t0r)) : tarr[R.offset + k];\n"
           : "            const real t = R.affine ? fma((double)k, R.dt, R.t0) : tarr[R.offset + k];\n";
  bin += m.per_bin;
  bin += "            const real th = " + m.value + ";\n";
  bin += statistic_code(s, d, gradient, "            ", "part");
  if (gradient) bin += gradient_accumulate(m, d, "            ", "part");
  const std::string checked = "#pragma unroll\n          for (int j = 0; j < PACK; ++j) {\n            const int k = PACK * g + j;\n"
                              "            if (k >= count) break;\n" + bin + "          }\n";
  out += "          if (PACK * g + PACK <= count) {\n#pragma unroll\n          for (int j = 0; j < PACK; ++j) {\n            const int k = PACK * g + j;\n" +
         bin + "          }\n          } else {\n" + checked + "          }\n";
  out += "#pragma unroll\n          for (int j = 0; j < NS; ++j) acc[j] += (double)part[j];\n";
  out += "          cur = nxt;\n        }\n      } break;\n";
  return out;
}

// The kernels' common parameters after the parameter struct.
constexpr const char* kCommonParams =
    "const RunInfo* __restrict__ runs, int nruns, const int* __restrict__ param_map,\n"
    "    const int* __restrict__ block_run, const bin_t* __restrict__ bins, const real* __restrict__ tarr,\n"
    "    double* __restrict__ partials, double* __restrict__ runsum, const int* __restrict__ param_ptr,\n"
    "    const int* __restrict__ param_entry, unsigned* __restrict__ counter, double* __restrict__ out";

std::string kernel_body(const FitData& data, const Dialect& d, bool gradient, const CudaSource& src);

// One kernel: bins of the block's run, block reduction into partials, last block's final sum,
// then the sequence number the host polls for.
std::string kernel(const FitData& data, const Dialect& d, bool gradient, const std::string& name, const CudaSource& src) {
  std::string out = str_cat("extern \"C\" __global__ void __launch_bounds__(", kCudaBlockThreads, ", ", src.min_blocks, ") ", name,
                            "(const __grid_constant__ Args a, ", kCommonParams,
                            ",\n    unsigned long long* __restrict__ done, unsigned long long seq",
                            src.tables > 0 ? ",\n    const double* __restrict__ tabs, const MuTab* __restrict__ tinfo" : "", ") {\n");
  out += kernel_body(data, d, gradient, src);
  if (!gradient) {
    // Thread 0 of the last block wrote out[0]: it alone fences and publishes.
    out += R"(  if (done != nullptr && threadIdx.x == 0) {
    __threadfence_system();
    *(volatile unsigned long long*)done = seq;
  }
)";
  } else {
    // Every writer fences at system scope before the barrier, so the host that sees seq sees out.
    out += R"(  if (done != nullptr) {
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) *(volatile unsigned long long*)done = seq;
  }
)";
  }
  out += "}\n\n";
  return out;
}

// The statements of one pass: bins of the block's run, block reduction into partials, the last
// block's final sum into out.
std::string kernel_body(const FitData& data, const Dialect& d, bool gradient, const CudaSource& src) {
  const int ns = gradient ? src.slots : 1;
  std::string out = str_cat("  constexpr int NS = ", ns, ", BLOCK = ", kCudaBlockThreads, ";\n");
  out += "  double acc[NS];\n  for (int j = 0; j < NS; ++j) acc[j] = 0.0;\n";
  // One table entry holds everything the block needs before its bins; their first Pack is
  // loaded before any parameter, so that its latency overlaps the per-block constants.
  out += "  const BlockInfo& R = reinterpret_cast<const BlockInfo*>(block_run)[blockIdx.x];\n";
  out += "  const int count = R.count, g_lo = R.g_lo, g_hi = R.g_hi;\n";
  out += "  const Pack* __restrict__ P = reinterpret_cast<const Pack*>(bins + R.offset * W);\n";
  out += "  int g = g_lo + (int)threadIdx.x;\n  Pack cur{};\n  if (g < g_hi) cur = P[g];\n";
  out += "  switch (R.kind) {\n";
  const TheoryCases cases = group_theories(data);
  for (std::size_t k = 0; k < cases.first_run.size(); ++k) {
    const RunBins& first = data.runs[static_cast<std::size_t>(cases.first_run[k])];
    out += run_case(k, first, d, data.statistic, gradient, src);
  }
  out += "    default: break;\n  }\n";
  out += R"(  // Block reduction: warp shuffles, then the warps' sums through shared memory.
  __shared__ double sh[NS][BLOCK / 32];
  __shared__ bool last;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int j = 0; j < NS; ++j) {
    double v = acc[j];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) sh[j][warp] = v;
  }
  __syncthreads();
  for (int j = threadIdx.x; j < NS; j += BLOCK) {
    double v = 0.0;
    for (int w = 0; w < BLOCK / 32; ++w) v += sh[j][w];
    partials[(long long)blockIdx.x * NS + j] = v;
  }
  // The last block to arrive sums every block's partials in a fixed order (deterministic):
  // a warp per run adds its blocks' NS sums, then the statistic and each parameter's slots.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(counter, 1u) == gridDim.x - 1;
  __syncthreads();
)";
  out += "  if (!last) return;\n";
  out += "  __threadfence();\n";
  // The statistic over every block at once, in a fixed order: thread i adds blocks i, i + BLOCK,
  // …, then the warps' shuffles and warp order (sh was last read before the ticket's barriers).
  out += R"(  {
    double v = 0.0;
    for (int blk = threadIdx.x; blk < (int)gridDim.x; blk += BLOCK) v += __ldcg(&partials[(long long)blk * NS]);
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) sh[0][warp] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
      v = 0.0;
      for (int w = 0; w < BLOCK / 32; ++w) v += sh[0][w];
      out[0] = v;
      *counter = 0u;
    }
  }
)";
  if (!gradient) return out;
  out += R"(  for (int r = warp; r < nruns; r += BLOCK / 32) {
    const RunInfo Q = runs[r];
    double s[NS];
    for (int j = 0; j < NS; ++j) s[j] = 0.0;
    for (int blk = Q.first_block + lane; blk < Q.first_block + Q.blocks; blk += 32)
      for (int j = 0; j < NS; ++j) s[j] += __ldcg(&partials[(long long)blk * NS + j]);
    for (int j = 0; j < NS; ++j) {
      double v = s[j];
      for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
      if (lane == 0) runsum[r * NS + j] = v;
    }
  }
  __threadfence_block();
  __syncthreads();
)";
  out += R"(  for (int i = threadIdx.x; i < NP; i += BLOCK) {
    double v = 0.0;
    for (int e = param_ptr[i]; e < param_ptr[i + 1]; ++e) v += runsum[param_entry[e]];
    out[1 + i] = v;
  }
)";
  return out;
}

}  // namespace

CudaSource cuda_chi2_source(const FitData& data, bool single_precision) {
  if (data.num_params > kCudaMaxInlineParams)
    throw InputError(str_cat("musr cuda: ", data.num_params, " fit parameters; the cuda backend takes at most ",
                             kCudaMaxInlineParams, " (use --backend cpu)"));
  if (data.runs.empty()) throw InputError("musr cuda: no runs to fit");
  Dialect d = cuda_dialect(single_precision);
  d.fast_math = single_precision;
  d.hoist_reciprocals = true;
  CudaSource src;
  src.group = kCudaPackBins;
  src.slots = 1 + max_slots(data);
  // Blocks an SM: float 4 (≤ 64 registers a thread: the eq. 5 value kernel needs 60, the
  // gradient spills 8 bytes), double 2 (≤ 128: eq. 5 needs 84 and 114, 64 would spill ~100 bytes).
  // Either way 16–32 KB of loads are in flight per SM, enough for HBM's latency.
  src.min_blocks = single_precision ? 4 : 2;
  if (src.slots > kCudaBlockThreads)
    throw InputError(str_cat("musr cuda: a run's theory depends on ", src.slots - 1, " parameters; at most ",
                             kCudaBlockThreads - 1, " are supported"));
  std::string& s = src.text;
  s = "// Generated by tomoraster (compute/musr/codegen_cuda.cpp): musr χ² kernels of one theory.\n";
  s += str_cat("typedef ", d.real, " real;\ntypedef ", d.real, "2 real2;\n");
  // NP rounded up to 8 so that fits of one theory with a few parameters more or less share the
  // compiled kernel, with a small by-value argument a launch.
  constexpr int np_round = 8;
  src.np = std::min(kCudaMaxInlineParams, std::max(np_round, (data.num_params + np_round - 1) / np_round * np_round));
  s += str_cat("#define NP ", src.np, "\n");
  s += "struct Args { double p[NP]; };\n";
  s += "struct RunInfo { long long offset, count; int first_block, blocks, affine, kind; double t0, dt, scale; int pmap, pad; };\n";
  s += helper_functions(d);
  s += dawson_source(d);
  src.y_only = poisson_errors(data);
  if (data.bins() > (std::size_t{1} << 30))
    throw InputError(str_cat("musr cuda: ", data.bins(), " bins; the cuda backend takes at most 2^30"));
  src.stepped = true;
  for (const RunBins& r : data.runs) {
    double t0 = 0.0, dt = 0.0;
    src.stepped = src.stepped && affine_time(r.t, t0, dt);
  }
  s += "typedef real bin_t;\n";
  // PACK bins a Pack (src.group); loads of 16 bytes or more.
  const int pack_bytes = src.group * (src.y_only ? 1 : 2) * (single_precision ? 4 : 8);
  s += str_cat("#define W ", src.y_only ? 1 : 2, "\n#define PACK ", src.group, "\nstruct __align__(", std::min(16, pack_bytes),
               ") Pack { bin_t v[PACK * W]; };\n");
  // 56 bytes of fields, then the run's parameter map padded to a 16-byte multiple.
  src.block_pm = std::max(1, src.slots - 1);
  while ((kCudaBlockInfoFieldBytes + 4 * src.block_pm) % 16 != 0) ++src.block_pm;
  src.block_ints = (kCudaBlockInfoFieldBytes + 4 * src.block_pm) / 4;
  s += str_cat("struct __align__(16) BlockInfo { long long offset; double t0, dt, scale; int count, kind, affine, g_lo, g_hi, run, pm[",
               src.block_pm, "]; };\n");
  src.tables = max_tables(data);
  if (src.tables > 0) s += cuda_table_helpers(d, src.tables);
  s += single_precision ? "__device__ __forceinline__ float mu_keep(float x) { asm volatile(\"\" : \"+f\"(x)); return x; }\n"
                        : "__device__ __forceinline__ double mu_keep(double x) { asm volatile(\"\" : \"+d\"(x)); return x; }\n";
  // Fast float: flush denormals, so __expf and __fdividef are one hardware op and a multiply.
  if (d.fast_math) src.nvrtc_options.push_back("--ftz=true");
  s += kernel(data, d, false, src.value_kernel, src);
  s += kernel(data, d, true, src.gradient_kernel, src);
  return src;
}

bool poisson_errors(const FitData& data) {
  if (data.statistic == Statistic::max_likelihood) return true;
  for (const RunBins& r : data.runs) {
    const double n = r.scale;
    for (std::size_t k = 0; k < r.y.size(); ++k) {
      const double w = 1.0 / (r.sigma[k] * r.sigma[k]);
      const double expect = r.y[k] > 0.0 ? n / r.y[k] : n * n * n;
      if (!(r.y[k] >= 0.0) || !(std::fabs(w - expect) <= 1e-12 * expect)) return false;
    }
  }
  return true;
}

}  // namespace tomo::musr
