// The product gather's forms before its azimuth table (cuda/oat/srt_gather.cuh), kept as bench
// policies: ExactPoints computes every patch position by kernel_math shell_point (sincosf per
// patch), BlockedDeal gives lane l the patches l·P … l·P + P − 1 (P = ⌈total/32⌉), so that
// neighbouring lanes add into distant voxels. Together they are bench_oat's gather-before (890 ms
// on one H200 against the table's 808 ms, the same image bit for bit).
#pragma once
#include <cuda_runtime.h>

#include "cuda/oat/srt_gather.cuh"

namespace tomo::oat::cuda_detail {

struct ExactPoints {
  __device__ __forceinline__ static void at(const ShellFrame<float>& f, const ShellCap<float>& c,
                                            const ShellRing<float>& r, int j, float* x, float* y, float* z,
                                            const GatherParams&) {
    shell_point(f, c, r, j, x, y, z);
  }
};

struct BlockedDeal {
  template <class Locate, class Visit>
  __device__ __forceinline__ static void run(int lane, int total, Locate&& locate, Visit&& visit) {
    const int per_lane = (total + 31) >> 5;
    for (int it = 0; it < per_lane; ++it) {
      const int x = lane * per_lane + it;
      if (x >= total) break;
      float px, py, pz, w;
      locate(x, &px, &py, &pz, &w);
      visit(px, py, pz, w);
    }
  }
};

// launch_gather_as with the bench's defaults: positions by shell_point unless Points says, the
// blocked deal unless Deal says.
template <int TX, int TY, int TZ, class Points, class Add, int RX, int PY, int kMinBlocks, class Cut = LineCut,
          class Deal = BlockedDeal>
void launch_bench_gather(const SrtParams& p, const GatherParams& gp, const float* g, float* alpha, float* partial,
                         cudaStream_t stream) {
  launch_gather_as<TX, TY, TZ, Points, Add, RX, PY, kMinBlocks, Cut, Deal>(p, gp, g, alpha, partial, stream);
}

}  // namespace tomo::oat::cuda_detail
