// The resident musr kernel's source (codegen_resident.hpp); the protocol is in codegen_cuda.hpp
// (kResident*) and docs/musr.md (round three).
#include "compute/musr/codegen_resident.hpp"

#include "compute/core/log.hpp"

namespace tomo::musr {
namespace {

// Loads, stores and fences the protocol needs, spelled in PTX (memory-model qualifiers).
constexpr const char* kResidentHelpers = R"(__device__ __forceinline__ unsigned long long mu_ld_sys(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long mu_ld_gpu(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void mu_st_release_gpu(unsigned long long* p, unsigned long long v) {
  asm volatile("st.release.gpu.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void mu_st_release_sys(unsigned long long* p, unsigned long long v) {
  asm volatile("st.release.sys.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void mu_fence_acquire_sys() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }
__device__ __forceinline__ unsigned long long mu_now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
)";

// Thread 0's wait for the next command (in the kernel's loop): sets s (seq) and c (command).
std::string wait_for_command(bool poll_all) {
  std::string out = R"(      unsigned long long s = seen, c = kIdle;
      for (;;) {
        if (poller) {
          s = mu_ld_sys(ctl);
          if (s > seen) {
            mu_fence_acquire_sys();  // cmd and the parameters were written before seq
            c = mu_ld_sys(ctl + 1);
            break;
          }
          if (blockIdx.x == 0 && mu_now_ns() - t_last > idle_ns) break;  // idle: c = kIdle
)";
  if (poll_all) out += "          if (blockIdx.x != 0 && mu_ld_gpu(st + 3) != 0ull) break;\n";
  out += R"(        } else {
          s = mu_ld_gpu(st);
          if (s > seen) {
            __threadfence();
            c = mu_ld_gpu(st + 1);
            break;
          }
          if (mu_ld_gpu(st + 3) != 0ull) break;
        }
      }
)";
  return out;
}

}  // namespace

// The resident kernel (codegen_cuda.hpp): waits for a command, runs one pass, publishes, again.
// poll_one: block 0's thread 0 polls the host's seq (PCIe reads), copies the parameters into
// device memory and broadcasts seq there; the other blocks' thread 0 spin on that word in L2.
// poll_all: every block's thread 0 polls the host and reads the parameters from it.
std::string cuda_resident_kernel(const CudaSource& src, bool poll_all, const std::string& common_params) {
  std::string out = kResidentHelpers;
  out += str_cat("extern \"C\" __global__ void __launch_bounds__(", kCudaBlockThreads, ", ", src.min_blocks, ") ", src.resident_kernel,
                 "(const unsigned long long* __restrict__ ctl, unsigned long long* __restrict__ st,\n"
                 "    unsigned long long seen, unsigned long long idle_ns, int npar, ",
                 common_params, ", unsigned long long* __restrict__ done) {\n");
  out += str_cat("  constexpr int BLOCK = ", kCudaBlockThreads, ", CTL = ", kResidentCtlHeader, ", ST = ", kResidentStateHeader, ";\n");
  out += str_cat("  constexpr unsigned long long kGradient = ", kResidentGradient, "ull, kStop = ", kResidentStop, "ull, kIdle = kStop + 1;\n");
  out += str_cat("  const bool poller = ", poll_all ? "true" : "blockIdx.x == 0", ";\n");
  out += R"(  __shared__ Args sa;
  __shared__ unsigned long long s_seq, s_cmd;
  unsigned long long t_last = mu_now_ns();
  for (;;) {
    if (threadIdx.x == 0) {
)";
  out += wait_for_command(poll_all);
  out += R"(      s_seq = s;
      s_cmd = c;
      if (blockIdx.x == 0 && c == kIdle) {  // tell the other blocks, then the host, why the grid ends
        mu_st_release_gpu(st + 3, 1ull);
        done[1] = 1ull;
        __threadfence_system();
      }
)";
  if (!poll_all) {
    out += R"(      if (blockIdx.x == 0 && c == kStop) {
        st[1] = c;
        mu_st_release_gpu(st, s);
      }
)";
  }
  out += R"(    }
    __syncthreads();
    const unsigned long long seq = s_seq, cmd = s_cmd;
    if (cmd >= kStop) return;
    if (poller) {
      for (int i = threadIdx.x; i < npar; i += BLOCK) {
        const unsigned long long bits = mu_ld_sys(ctl + CTL + i);
        sa.p[i] = __longlong_as_double((long long)bits);
)";
  if (!poll_all) out += "        st[ST + i] = bits;\n";
  out += R"(      }
      __threadfence();
    } else {
      for (int i = threadIdx.x; i < npar; i += BLOCK) sa.p[i] = __longlong_as_double((long long)mu_ld_gpu(st + ST + i));
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      t_last = mu_now_ns();
      if (blockIdx.x == 0) {
        st[2] = t_last;
)";
  if (!poll_all) out += "        st[1] = cmd;\n        mu_st_release_gpu(st, seq);  // after the parameters (fenced above) and cmd\n";
  else out += "        __threadfence();\n";
  out += R"(      }
    }
    const bool last = cmd == kGradient
        ? musr_pass_gradient(sa, runs, nruns, param_map, block_run, bins, tarr, partials, runsum, param_ptr, param_entry, counter, out)
        : musr_pass_value(sa, runs, nruns, param_map, block_run, bins, tarr, partials, runsum, param_ptr, param_entry, counter, out);
    if (last) {
      __threadfence_system();  // every writer of out
      __syncthreads();
      if (threadIdx.x == 0) {
        done[2] = mu_now_ns() - mu_ld_gpu(st + 2);
        mu_st_release_sys(done, seq);
      }
    }
    seen = seq;
  }
}
)";
  return out;
}

}  // namespace tomo::musr
