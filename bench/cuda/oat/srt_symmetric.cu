// Bench-only symmetric H_srt / H_srtᵀ (srt_symmetric.hpp), compiled as srt_kernels.cu is
// (bench/CMakeLists.txt), so the patches and weights are the product's arithmetic.
#include "bench/cuda/oat/srt_symmetric.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "bench/cuda/oat/srt_adjoint_variants.hpp"
#include "compute/core/metrics.hpp"
#include "compute/oat/params.hpp"
#include "compute/oat/srt_symmetry.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/event.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/oat/srt_device.cuh"
#include "cuda/oat/srt_gather.cuh"
#include "cuda/oat/srt_kernels.hpp"

namespace tomo::oat {
namespace {

using namespace cuda_detail;
using Pass = SymmetryPass<float>;

struct SymParams {
  const Pass* passes = nullptr;
  const int* orbit_first = nullptr;
  int orbits = 0;
  int n = 0;  // voxels along x and y
  int tiles[3] = {0, 0, 0};  // the quadrant's tiles
  int orbits_per_chunk = 0;
};

// Voxel (i, j) turned k quarters: R(i, j) = (n − 1 − j, i).
__device__ __forceinline__ void turn_voxel(int n, int k, int i, int j, int* a, int* b) {
  switch (k) {
    case 0: *a = i, *b = j; break;
    case 1: *a = n - 1 - j, *b = i; break;
    case 2: *a = n - 1 - i, *b = n - 1 - j; break;
    default: *a = j, *b = n - 1 - i; break;
  }
}

__global__ void interleave_kernel(const float* __restrict__ alpha, float4* __restrict__ c4, int n, int nz) {
  const std::int64_t v = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t plane = static_cast<std::int64_t>(n) * n;
  if (v >= plane * nz) return;
  const int i = static_cast<int>(v % n), j = static_cast<int>((v / n) % n);
  const std::int64_t k = v / plane;
  float4 out;
  float* o = &out.x;
  for (int r = 0; r < 4; ++r) {
    int a, b;
    turn_voxel(n, r, i, j, &a, &b);
    o[r] = alpha[a + static_cast<std::int64_t>(n) * b + plane * k];
  }
  c4[v] = out;
}

// One warp per (orbit, shell sample): the orbit's passes, each ring's patches by the lanes, the
// eight float4 loads of a patch giving the four members' trilinear values.
__global__ void __launch_bounds__(kSrtThreads) sym_forward_kernel(SrtParams p, SymParams sp,
                                                                   const float4* __restrict__ c4,
                                                                   float* __restrict__ g) {
  const std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * kSrtWarpsPerBlock + (threadIdx.x >> 5);
  if (s >= static_cast<std::int64_t>(sp.orbits) * p.shells) return;
  const int o = static_cast<int>(s / p.shells), m = static_cast<int>(s % p.shells);
  const int lane = threadIdx.x & 31;
  float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
  const int first = sp.orbit_first[o], last = sp.orbit_first[o + 1];
  for (int pi = first; pi < last; ++pi) {
    const Pass ps = sp.passes[pi];
    const ShellFrame<float>& f = ps.frame;
    const ShellCap<float> c = shell_cap(f, shell_radius(p, m), p.h);
    for_each_ring(c, lane, [&](const ShellRing<float>& r) {
      const unsigned mask = (r.n_phi & 1) ? ps.mask_odd : ps.mask_even;
      if (mask == 0) return;  // uniform: r is the warp's
      float4 ring = make_float4(0.f, 0.f, 0.f, 0.f);
      for (int j = lane; j < r.n_phi; j += 32) {
        float x, y, z;
        shell_point(f, c, r, j, &x, &y, &z);
        trilinear_visit(p.grid, x, y, z, [&](int n, float w) {
          const float4 a = __ldg(c4 + n);
          ring.x += w * a.x;
          ring.y += w * a.y;
          ring.z += w * a.z;
          ring.w += w * a.w;
        });
      }
      if (mask & 1u) sum.x += r.area * ring.x;
      if (mask & 2u) sum.y += r.area * ring.y;
      if (mask & 4u) sum.z += r.area * ring.z;
      if (mask & 8u) sum.w += r.area * ring.w;
    });
  }
  sum.x = warp_sum(sum.x);
  sum.y = warp_sum(sum.y);
  sum.z = warp_sum(sum.z);
  sum.w = warp_sum(sum.w);
  if (lane == 0) {
    const Pass& ps = sp.passes[first];
    g[static_cast<std::int64_t>(ps.q[0]) * p.shells + m] = sum.x;
    g[static_cast<std::int64_t>(ps.q[1]) * p.shells + m] = sum.y;
    g[static_cast<std::int64_t>(ps.q[2]) * p.shells + m] = sum.z;
    g[static_cast<std::int64_t>(ps.q[3]) * p.shells + m] = sum.w;
  }
}

// A warp's rings of one batch, as srt_gather.cuh WarpRings with the four members' weights.
struct SymRings {
  float sin_t[32], cos_t[32];
  float4 w[32];
  int n_phi[32], j_lo[32], first[32];
  unsigned char owner[kOwnerCap];
};

// One shell sample of one pass for the tile and its turned images (all lanes call it).
template <int RX, int PY, int kAcc, bool kAdds>
__device__ __forceinline__ void sym_shell_sample(const SrtParams& p, const GatherParams& gp, const GatherTile<float>& t,
                                                 const ShellFrame<float>& f, const GatherView<float>& v, int m,
                                                 float4 value, unsigned mask_even, unsigned mask_odd, int lane,
                                                 SymRings& wr, float* acc, const FixedAdd& add) {
  const GatherShell<float> s = gather_shell(f, v, shell_radius(p, m), p.h);
  for (int i0 = s.i_lo; i0 <= s.i_hi; i0 += 32) {
    const int i = i0 + lane;
    ShellRing<float> r{1, 0.0f, 0.0f, 1.0f};
    RingRange rr{0, 0};
    float4 w = make_float4(0.f, 0.f, 0.f, 0.f);
    if (i <= s.i_hi) {
      r = srt_ring(s.cap, i, s.sin_half);
      const unsigned mask = (r.n_phi & 1) ? mask_odd : mask_even;
      if (mask != 0) {
        rr = LineCut::ring(f, v, s, r, i);
        w = make_float4((mask & 1u) ? r.area * value.x : 0.f, (mask & 2u) ? r.area * value.y : 0.f,
                        (mask & 4u) ? r.area * value.z : 0.f, (mask & 8u) ? r.area * value.w : 0.f);
      }
    }
    int incl = rr.count;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int y = __shfl_up_sync(kFullMask, incl, o);
      if (lane >= o) incl += y;
    }
    const int total = __shfl_sync(kFullMask, incl, 31);
    if (total == 0) continue;
    const int first = incl - rr.count;
    wr.sin_t[lane] = r.sin_t;
    wr.cos_t[lane] = r.cos_t;
    wr.w[lane] = w;
    wr.n_phi[lane] = r.n_phi;
    wr.j_lo[lane] = rr.j_lo;
    wr.first[lane] = first;
    for (int x = first, end = min(incl, kOwnerCap); x < end; ++x) wr.owner[x] = static_cast<unsigned char>(lane);
    __syncwarp();
    for (int x = lane; x < total; x += 32) {  // interleaved deal, as the product's
      int o = 0;
      if (x < kOwnerCap) {
        o = wr.owner[x];
      } else {
#pragma unroll
        for (int step = 16; step > 0; step >>= 1)
          if (o + step < 32 && wr.first[o + step] <= x) o += step;
      }
      const int n_phi = wr.n_phi[o];
      int j = wr.j_lo[o] + (x - wr.first[o]);
      if (j >= n_phi) j -= n_phi;
      const ShellRing<float> ring{n_phi, 0.0f, wr.sin_t[o], wr.cos_t[o]};
      const float4 wo = wr.w[o];
      float px, py, pz;
      TablePoints::at(f, s.cap, ring, j, &px, &py, &pz, gp);
      tile_visit(p.grid, t, RX, PY, px, py, pz, [&](int idx, float wt) {
        if constexpr (kAdds) {
          if (wo.x != 0.0f) add(acc, idx, wt * wo.x);
          if (wo.y != 0.0f) add(acc + 2 * kAcc, idx, wt * wo.y);
          if (wo.z != 0.0f) add(acc + 4 * kAcc, idx, wt * wo.z);
          if (wo.w != 0.0f) add(acc + 6 * kAcc, idx, wt * wo.w);
        } else {
          if (wt * (wo.x + wo.y + wo.z + wo.w) == 3.0e38f) acc[idx] = wt;  // never: keeps the visit
        }
      });
    }
    __syncwarp();
  }
}

// Block (quadrant tile blockIdx.x, orbit chunk blockIdx.y): the tile T and R T, R² T, R³ T, four
// fixed-point copies in shared memory; each voxel V of T's copy k is α(R^k V).
template <int TX, int TY, int TZ, int W, int kMinBlocks, bool kAdds>
__global__ void __launch_bounds__(32 * W, kMinBlocks) sym_gather_kernel(SrtParams p, GatherParams gp, SymParams sp,
                                                                        const float* __restrict__ g,
                                                                        float* __restrict__ out) {
  constexpr int RX = TX + 1, PY = TY + 1;
  constexpr int kAcc = gather_acc_floats<TX, TY, TZ, RX, PY>();
  extern __shared__ float acc[];  // 4 copies of 2·kAcc words
  __shared__ SymRings rings[W];
  const FixedAdd add = FixedAdd::make(gp, kAcc);
  for (int i = threadIdx.x; i < 8 * kAcc; i += 32 * W) acc[i] = 0.0f;
  const int b = static_cast<int>(blockIdx.x);
  const int ti = b % sp.tiles[0], tj = (b / sp.tiles[0]) % sp.tiles[1], tk = b / (sp.tiles[0] * sp.tiles[1]);
  GridParams<float> quadrant = p.grid;  // tiles clipped to the first quadrant
  quadrant.nx = quadrant.ny = sp.n / 2;
  const GatherTile<float> t = gather_tile(quadrant, ti * TX, tj * TY, tk * TZ, TX, TY, TZ, gp.margin);
  __syncthreads();
  const float cx = t.c[0] - gp.cx, cy = t.c[1] - gp.cy, cz = t.c[2] - gp.cz;
  const float reach = gp.rho + t.r;
  if (cx * cx + cy * cy + cz * cz <= reach * reach) {
    const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31);
    const int o_begin = static_cast<int>(blockIdx.y) * sp.orbits_per_chunk;
    const int o_end = min(sp.orbits, o_begin + sp.orbits_per_chunk);
    int slot = 0;
    for (int pi = sp.orbit_first[o_begin], pe = sp.orbit_first[o_end]; pi < pe; ++pi) {
      const Pass ps = sp.passes[pi];
      const GatherView<float> v = gather_view(ps.frame, t);
      int m_lo, m_hi;
      gather_shells(v, p.c0, p.t_min, p.dt, p.shells, &m_lo, &m_hi);
      const int n = m_hi - m_lo + 1;
      if (n <= 0) continue;
      int k = (warp - slot) % W;
      if (k < 0) k += W;
      for (; k < n; k += W) {
        const int m = m_lo + k;
        const float4 value = make_float4(__ldg(g + static_cast<std::int64_t>(ps.q[0]) * p.shells + m),
                                         __ldg(g + static_cast<std::int64_t>(ps.q[1]) * p.shells + m),
                                         __ldg(g + static_cast<std::int64_t>(ps.q[2]) * p.shells + m),
                                         __ldg(g + static_cast<std::int64_t>(ps.q[3]) * p.shells + m));
        if (value.x != 0.0f || value.y != 0.0f || value.z != 0.0f || value.w != 0.0f)
          sym_shell_sample<RX, PY, kAcc, kAdds>(p, gp, t, ps.frame, v, m, value, ps.mask_even, ps.mask_odd, lane,
                                                rings[warp], acc, add);
      }
      slot = (slot + n) % W;
    }
  }
  __syncthreads();
  const std::int64_t N = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  float* dst = out + static_cast<std::int64_t>(blockIdx.y) * N;
  for (int i = threadIdx.x; i < 4 * TX * TY * TZ; i += 32 * W) {
    const int r = i / (TX * TY * TZ), l = i % (TX * TY * TZ);
    const int x = l % TX, y = (l / TX) % TY, z = l / (TX * TY);
    const int a = t.lo[0] + x, bb = t.lo[1] + y, c = t.lo[2] + z;
    if (a < t.hi[0] && bb < t.hi[1] && c < t.hi[2]) {
      int ra, rb;
      turn_voxel(sp.n, r, a, bb, &ra, &rb);
      dst[ra + static_cast<std::int64_t>(p.grid.nx) * (rb + static_cast<std::int64_t>(p.grid.ny) * c)] =
          add.read(acc + 2 * kAcc * r, x + RX * (y + PY * z));
    }
  }
}

struct SymGatherForm {
  const char* name;
  int tile[3];
  int warps;
  int blocks_per_sm;  // resident blocks the shared memory allows (for the plan)
  void (*launch)(const SrtParams&, const GatherParams&, const SymParams&, const float*, float*, cudaStream_t);
  cudaFuncAttributes (*attributes)();
};

template <int TX, int TY, int TZ, int W, int kMinBlocks, bool kAdds>
void launch_sym_gather(const SrtParams& p, const GatherParams& gp, const SymParams& sp, const float* g, float* out,
                       cudaStream_t stream) {
  constexpr std::size_t kBytes = sizeof(float) * 8 * gather_acc_floats<TX, TY, TZ, TX + 1, TY + 1>();
  auto* kernel = sym_gather_kernel<TX, TY, TZ, W, kMinBlocks, kAdds>;
  TOMO_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kBytes)));
  TOMO_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  const dim3 grid(static_cast<unsigned>(sp.tiles[0] * sp.tiles[1] * sp.tiles[2]),
                  static_cast<unsigned>((sp.orbits + sp.orbits_per_chunk - 1) / sp.orbits_per_chunk));
  kernel<<<grid, 32 * W, kBytes, stream>>>(p, gp, sp, g, out);
  TOMO_CUDA_CHECK_LAST();
}

template <int TX, int TY, int TZ, int W, int kMinBlocks, bool kAdds>
cudaFuncAttributes sym_attributes() {
  cudaFuncAttributes a{};
  TOMO_CUDA_CHECK(cudaFuncGetAttributes(&a, sym_gather_kernel<TX, TY, TZ, W, kMinBlocks, kAdds>));
  return a;
}

#define TOMO_SYM_FORM(name, TX, TY, TZ, W, B, ADDS)                                                   \
  SymGatherForm {                                                                                    \
    name, {TX, TY, TZ}, W, B, launch_sym_gather<TX, TY, TZ, W, B, ADDS>, sym_attributes<TX, TY, TZ, W, B, ADDS> \
  }

const SymGatherForm kForms[] = {
    TOMO_SYM_FORM("sym-gather 16x16x16, 16 warps, 1 block/SM", 16, 16, 16, 16, 1, true),
    TOMO_SYM_FORM("sym-gather 16x16x8, 16 warps, 2 blocks/SM", 16, 16, 8, 16, 2, true),
    TOMO_SYM_FORM("sym-gather 16x16x8, 8 warps, 2 blocks/SM", 16, 16, 8, 8, 2, true),
    TOMO_SYM_FORM("sym-gather 16x16x8, 16 warps, no adds (probe)", 16, 16, 8, 16, 2, false),
};

double dot(const std::vector<float>& a, std::span<const double> b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}
double norm(const std::vector<float>& a) {
  double s = 0;
  for (float x : a) s += static_cast<double>(x) * x;
  return std::sqrt(s);
}
double norm(std::span<const double> a) {
  double s = 0;
  for (double x : a) s += x * x;
  return std::sqrt(s);
}
// |⟨Hα, g⟩ − ⟨α, Hᵀg⟩| / (‖Hα‖‖g‖).
double identity(const std::vector<float>& h_alpha, std::span<const double> g, std::span<const double> alpha,
                const std::vector<float>& ht_g) {
  return std::abs(dot(h_alpha, g) - dot(ht_g, alpha)) / (norm(h_alpha) * norm(g));
}

}  // namespace

SymmetricTimes time_srt_symmetric(const OatGeometry& geo, const ModelOptions& o, std::span<const double> alpha,
                                  std::span<const double> samples, int reps) {
  SymmetricTimes out;
  const SrtSymmetry sym = plan_srt_symmetry(geo);
  if (!sym.ok) {
    out.why = sym.why;
    return out;
  }
  out.ok = true;
  out.orbits = sym.orbits;
  out.passes = static_cast<int>(sym.passes.size());
  const int Q = geo.transducer_count(), M = geo.time.samples + 2;
  const std::size_t N = geo.grid.count();
  tomo::cuda::Stream stream;
  SrtParams p;
  p.grid = grid_params<float>(geo);
  p.transducers = Q;
  p.shells = M;
  p.c0 = static_cast<float>(geo.c0_mm_per_us);
  p.t_min = static_cast<float>(geo.time.t_min_us);
  p.dt = static_cast<float>(geo.time.dt_us());
  p.h = static_cast<float>(patch_mm(geo, o));
  const std::vector<ShellFrame<float>> frames = shell_frames<float>(geo);
  tomo::cuda::DeviceBuffer<ShellFrame<float>> frames_d{std::span<const ShellFrame<float>>(frames)};
  p.frames = frames_d.data();
  const std::vector<Pass> passes = symmetry_passes_float(sym);
  tomo::cuda::DeviceBuffer<Pass> passes_d{std::span<const Pass>(passes)};
  tomo::cuda::DeviceBuffer<int> first_d{std::span<const int>(sym.orbit_first)};
  SymParams sp;
  sp.passes = passes_d.data();
  sp.orbit_first = first_d.data();
  sp.orbits = sym.orbits;
  sp.n = sym.n;
  // The product's plan (its tiles, margin, ball, chunks) and its scratch.
  const Vec3d c = geo.grid_centre_mm();
  const float centre[3] = {float(c[0]), float(c[1]), float(c[2])};
  const double rho = cap_radius_mm(geo);
  double far = 0;
  for (const ShellFrame<float>& f : frames) far = std::max(far, double(f.D) + rho);
  int device = 0, sms = 0;
  TOMO_CUDA_CHECK(cudaGetDevice(&device));
  TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  GatherParams gp = plan_gather(p, centre, float(rho), float(far), kGatherTile, kGatherBlocksPerSm * sms);
  tomo::cuda::DeviceBuffer<double> fixed(kGatherScratch);
  tomo::cuda::DeviceBuffer<float2> trig(trig_table_size(kTrigTableN));
  launch_trig_table(trig.data(), kTrigTableN, stream.get());
  gp.fixed = fixed.data();
  gp.trig = trig.data();
  gp.trig_n = kTrigTableN;
  const std::vector<float> alpha_f(alpha.begin(), alpha.end()), g_f(samples.begin(), samples.end());
  tomo::cuda::DeviceBuffer<float> alpha_d{std::span<const float>(alpha_f)}, g_d{std::span<const float>(g_f)};
  tomo::cuda::DeviceBuffer<float> u_d(static_cast<std::size_t>(Q) * M), img_d(N);
  tomo::cuda::DeviceBuffer<float> partial(8 * N);
  tomo::cuda::DeviceBuffer<float4> c4(N);
  const unsigned blocks_n = static_cast<unsigned>((N + 255) / 256);
  auto interleave = [&] {
    interleave_kernel<<<blocks_n, 256, 0, stream.get()>>>(alpha_d.data(), c4.data(), sym.n, geo.grid.dims[2]);
    TOMO_CUDA_CHECK_LAST();
  };
  const unsigned sym_blocks =
      static_cast<unsigned>((static_cast<std::int64_t>(sym.orbits) * M + kSrtWarpsPerBlock - 1) / kSrtWarpsPerBlock);

  // Forward: the product's exact kernel, then the symmetric one (interleave included).
  SymmetricRow fp{"H_srt exact (the product's kernel)"};
  fp.ms = tomo::cuda::best_event_ms(stream.get(), reps, [&] {
    launch_srt(p, alpha_d.data(), 0, u_d.data(), SrtFetch::exact, stream.get());
  });
  const std::vector<float> u_product = u_d.to_host();
  SymmetricRow fs{"sym-forward (float4 interleaved image)"};
  fs.ms = tomo::cuda::best_event_ms(stream.get(), reps, [&] {
    interleave();
    sym_forward_kernel<<<sym_blocks, kSrtThreads, 0, stream.get()>>>(p, sp, c4.data(), u_d.data());
    TOMO_CUDA_CHECK_LAST();
  });
  stream.synchronize();
  const std::vector<float> u_sym = u_d.to_host();
  fs.rel_l2_vs_product = relative_l2(u_sym, u_product);
  out.interleave_ms = tomo::cuda::best_event_ms(stream.get(), reps, interleave);
  {
    cudaFuncAttributes a{};
    TOMO_CUDA_CHECK(cudaFuncGetAttributes(&a, sym_forward_kernel));
    fs.registers = a.numRegs;
    fs.local_bytes = static_cast<int>(a.localSizeBytes);
  }

  // Adjoints: the scatter (reference), the product's gather, the symmetric forms.
  launch_adjoint_variant(AdjointVariant::scatter, p, gp, g_d.data(), img_d.data(), partial.data(), stream.get());
  stream.synchronize();
  const std::vector<float> scattered = img_d.to_host();
  SymmetricRow ap{"H_srtT gather (the product's kernel)"};
  ap.ms = tomo::cuda::best_event_ms(stream.get(), reps, [&] {
    launch_srt_gather(p, gp, g_d.data(), img_d.data(), partial.data(), stream.get());
  });
  stream.synchronize();
  const std::vector<float> gathered = img_d.to_host();
  ap.rel_l2_vs_scatter = relative_l2(gathered, scattered);
  ap.identity = identity(u_product, samples, alpha, gathered);
  ap.chunks = gp.chunks;
  out.product_identity = ap.identity;
  out.forward = {fp, fs};
  out.adjoint.push_back(ap);
  for (const SymGatherForm& form : kForms) {
    SymParams s2 = sp;
    for (int a = 0; a < 2; ++a) s2.tiles[a] = (sym.n / 2 + form.tile[a] - 1) / form.tile[a];
    s2.tiles[2] = (geo.grid.dims[2] + form.tile[2] - 1) / form.tile[2];
    // Busy tiles as the product's plan counts them, then chunks of orbits for about six blocks
    // per multiprocessor (at most 8 partial images).
    GridParams<float> quadrant = p.grid;
    quadrant.nx = quadrant.ny = sym.n / 2;
    int busy = 0;
    for (int k = 0; k < s2.tiles[2]; ++k)
      for (int j = 0; j < s2.tiles[1]; ++j)
        for (int i = 0; i < s2.tiles[0]; ++i) {
          const GatherTile<float> t = gather_tile(quadrant, i * form.tile[0], j * form.tile[1], k * form.tile[2],
                                                  form.tile[0], form.tile[1], form.tile[2], gp.margin);
          const float dx = t.c[0] - gp.cx, dy = t.c[1] - gp.cy, dz = t.c[2] - gp.cz, reach = gp.rho + t.r;
          if (dx * dx + dy * dy + dz * dz <= reach * reach) ++busy;
        }
    const int target = 6 * form.blocks_per_sm * sms;
    const int chunks = std::clamp((target + std::max(busy, 1) - 1) / std::max(busy, 1), 1, std::min(8, sym.orbits));
    s2.orbits_per_chunk = (sym.orbits + chunks - 1) / chunks;
    const int real_chunks = (sym.orbits + s2.orbits_per_chunk - 1) / s2.orbits_per_chunk;
    SymmetricRow r{form.name};
    r.chunks = real_chunks;
    auto run = [&] {
      launch_gather_scale(p, gp, g_d.data(), stream.get());
      form.launch(p, gp, s2, g_d.data(), real_chunks > 1 ? partial.data() : img_d.data(), stream.get());
      if (real_chunks > 1) launch_gather_reduce(partial.data(), real_chunks, img_d.data(), p, stream.get());
    };
    r.ms = tomo::cuda::best_event_ms(stream.get(), reps, run);
    stream.synchronize();
    const cudaFuncAttributes at = form.attributes();
    r.registers = at.numRegs;
    r.local_bytes = static_cast<int>(at.localSizeBytes);
    if (std::string(form.name).find("probe") == std::string::npos) {
      const std::vector<float> img = img_d.to_host();
      r.rel_l2_vs_product = relative_l2(img, gathered);
      r.rel_l2_vs_scatter = relative_l2(img, scattered);
      r.identity = identity(u_sym, samples, alpha, img);
      // The same bits from run to run (fixed-point sums, a fixed chunk order).
      run();
      stream.synchronize();
      const std::vector<float> again = img_d.to_host();
      if (!std::equal(img.begin(), img.end(), again.begin())) r.name += " [NOT REPRODUCIBLE]";
    }
    std::printf("  timed %s: %.2f ms, %d chunk(s), %d registers\n", r.name.c_str(), r.ms, r.chunks, r.registers);
    std::fflush(stdout);
    out.adjoint.push_back(r);
  }
  stream.synchronize();
  return out;
}

}  // namespace tomo::oat
