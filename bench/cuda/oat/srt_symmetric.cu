// The symmetric H_srt / H_srtᵀ rows (srt_symmetric.hpp), compiled as srt_kernels.cu is
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
#include "cuda/oat/srt_sym_forward.cuh"
#include "bench/cuda/oat/srt_sym_scatter.cuh"
#include "bench/cuda/oat/srt_symmetric_gather.cuh"

namespace tomo::oat {
namespace {

using namespace cuda_detail;
using Pass = SymmetryPass<float>;

struct SymGatherForm {
  const char* name;
  int tile[3];
  int warps;
  int blocks_per_sm;  // resident blocks the shared memory allows (for the plan)
  void (*launch)(const SrtParams&, const GatherParams&, const SymGatherParams&, const float*, float*, cudaStream_t);
  cudaFuncAttributes (*attributes)();
};

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
    TOMO_SYM_FORM("sym-gather 16x16x8, 16 warps, 2 blocks/SM", 16, 16, 8, 16, 2, true),
    TOMO_SYM_FORM("sym-gather 16x16x16, 16 warps, 1 block/SM", 16, 16, 16, 16, 1, true),
    TOMO_SYM_FORM("sym-gather 16x16x8, 16 warps, no adds (probe)", 16, 16, 8, 16, 2, false),
    TOMO_SYM_FORM("sym-gather 16x16x16, 16 warps, no adds (probe)", 16, 16, 16, 16, 1, false),
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
  SymmetricParams sp;
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

  // A row's best time, then what it left in `buf`.
  auto timed = [&](SymmetricRow& r, const tomo::cuda::DeviceBuffer<float>& buf, auto&& work) {
    r.ms = tomo::cuda::best_event_ms(stream.get(), reps, work);
    stream.synchronize();
    return buf.to_host();
  };
  // Forward: the general exact kernel, then the symmetric one (interleave included).
  SymmetricRow fp{"H_srt exact, general kernel"};
  const std::vector<float> u_product =
      timed(fp, u_d, [&] { launch_srt(p, alpha_d.data(), 0, u_d.data(), SrtFetch::exact, stream.get()); });
  SymmetricRow fs{"sym-forward, float4 interleaved (the product's)"};
  const std::vector<float> u_sym =
      timed(fs, u_d, [&] { launch_srt_symmetric(p, sp, alpha_d.data(), c4.data(), u_d.data(), stream.get()); });
  fs.rel_l2_vs_product = relative_l2(u_sym, u_product);
  // The symmetric forward's kernel alone (c4 as the product's call left it), and without its reads.
  auto forward_row = [&](const char* name, auto&& launch) {
    SymmetricRow r{name};
    const std::vector<float> u = timed(r, u_d, [&] { launch(); });
    r.rel_l2_vs_product = relative_l2(u, u_product);
    std::printf("  timed %s: %.2f ms\n", r.name.c_str(), r.ms);
    return r;
  };
  const SymmetricRow fk = forward_row("sym-forward kernel alone (the product's)", [&] {
    launch_sym_forward_as(p, sp, c4.data(), u_d.data(), stream.get());
  });
  const SymmetricRow fr = forward_row("probe: sym-forward kernel without its reads", [&] {
    launch_sym_forward_as<NoReadsProbe>(p, sp, c4.data(), u_d.data(), stream.get());
  });
  // Adjoints: the scatter (reference), the general gather, the symmetric forms.
  launch_adjoint_variant(AdjointVariant::scatter, p, gp, g_d.data(), img_d.data(), partial.data(), stream.get());
  stream.synchronize();
  const std::vector<float> scattered = img_d.to_host();
  SymmetricRow ap{"H_srtT gather, general kernel"};
  const std::vector<float> gathered =
      timed(ap, img_d, [&] { launch_srt_gather(p, gp, g_d.data(), img_d.data(), partial.data(), stream.get()); });
  ap.rel_l2_vs_scatter = relative_l2(gathered, scattered);
  ap.identity = identity(u_product, samples, alpha, gathered);
  ap.chunks = gp.chunks;
  out.product_identity = ap.identity;
  out.forward = {fp, fs, fk, fr};
  out.adjoint.push_back(ap);
  // The symmetric scatters, each with its own c4 pass (memset, kernel, deinterleave) timed.
  auto scatter_row = [&](const char* name, auto&& launch) {
    SymmetricRow r{name};
    const std::vector<float> img = timed(r, img_d, [&] { launch(); });
    r.rel_l2_vs_product = relative_l2(img, gathered);
    r.rel_l2_vs_scatter = relative_l2(img, scattered);
    r.identity = identity(u_sym, samples, alpha, img);
    std::printf("  timed %s: %.2f ms\n", r.name.c_str(), r.ms);
    std::fflush(stdout);
    out.adjoint.push_back(r);
  };
  scatter_row("sym-scatter, a float4 atomic per patch and corner", [&] {
    launch_sym_plain_scatter(p, sp, g_d.data(), c4.data(), img_d.data(), stream.get());
  });
  scatter_row("sym-scatter merged over 32 shells, parity slots (the product's)", [&] {
    launch_srt_symmetric_adjoint(p, sp, g_d.data(), c4.data(), img_d.data(), stream.get());
  });
  out.product_adjoint_ms = out.adjoint.back().ms;
  scatter_row("the same, registers for 4 blocks/SM", [&] {
    launch_sym_merged_as<4>(p, sp, g_d.data(), c4.data(), img_d.data(), stream.get());
  });
  scatter_row("probe: the same without its global adds", [&] {
    launch_sym_merged_as<1, NoAddsProbe>(p, sp, g_d.data(), c4.data(), img_d.data(),
                                                                stream.get());
  });
  out.no_adds_ms = out.adjoint.back().ms;
  // The product with the interleaved image marked persisting in L2 (as much of it as the carve-out
  // holds), to see whether its atomics lose to evictions.
  cudaDeviceProp prop{};
  TOMO_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  const std::size_t c4_bytes = N * sizeof(float4);
  if (prop.persistingL2CacheMaxSize > 0 && prop.accessPolicyMaxWindowSize > 0) {
    TOMO_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, prop.persistingL2CacheMaxSize));
    cudaStreamAttrValue attr{};
    attr.accessPolicyWindow.base_ptr = c4.data();
    attr.accessPolicyWindow.num_bytes = std::min<std::size_t>(c4_bytes, prop.accessPolicyMaxWindowSize);
    attr.accessPolicyWindow.hitRatio =
        static_cast<float>(std::min(1.0, double(prop.persistingL2CacheMaxSize) / attr.accessPolicyWindow.num_bytes));
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    TOMO_CUDA_CHECK(cudaStreamSetAttribute(stream.get(), cudaStreamAttributeAccessPolicyWindow, &attr));
    char name[160];
    std::snprintf(name, sizeof name, "the product, c4 persisting in L2 (%.0f of %.0f MB, hit ratio %.2f)",
                  prop.persistingL2CacheMaxSize / 1e6, c4_bytes / 1e6, attr.accessPolicyWindow.hitRatio);
    scatter_row(name, [&] {
      launch_srt_symmetric_adjoint(p, sp, g_d.data(), c4.data(), img_d.data(), stream.get());
    });
    attr.accessPolicyWindow.num_bytes = 0;
    TOMO_CUDA_CHECK(cudaStreamSetAttribute(stream.get(), cudaStreamAttributeAccessPolicyWindow, &attr));
    TOMO_CUDA_CHECK(cudaCtxResetPersistingL2Cache());
    TOMO_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
  }
  // The product's float4 atomics counted, then as many issued by the ceiling kernels.
  out.adds = count_sym_merged_adds(p, sp, g_d.data(), c4.data(), img_d.data(), stream.get());
  out.l2_bytes = prop.l2CacheSize;
  out.c4_bytes = c4_bytes;
  const struct {
    const char* name;
    RedPattern pattern;
  } ceilings[] = {{"float4 atomics, each lane a random voxel", RedPattern::random},
                  {"float4 atomics, a warp a 4x4x2 block of voxels", RedPattern::box},
                  {"float4 atomics, a warp 32 consecutive voxels", RedPattern::line},
                  {"float atomics (one component), each lane a random voxel", RedPattern::scalar}};
  for (const auto& c : ceilings) {
    SymmetricRow r{c.name};
    r.ms = tomo::cuda::best_event_ms(stream.get(), reps, [&] {
      launch_red_ceiling(c.pattern, c4.data(), p.grid.nx, p.grid.ny, p.grid.nz,
                         static_cast<std::int64_t>(out.adds), sms, stream.get());
    });
    std::printf("  timed ceiling %s: %.2f ms\n", r.name.c_str(), r.ms);
    std::fflush(stdout);
    out.ceilings.push_back(r);
  }
  for (const SymGatherForm& form : kForms) {
    SymGatherParams s2;
    s2.orbits = sp;
    for (int a = 0; a < 2; ++a) s2.tiles[a] = (sym.n / 2 + form.tile[a] - 1) / form.tile[a];
    s2.tiles[2] = (geo.grid.dims[2] + form.tile[2] - 1) / form.tile[2];
    // Busy tiles as the kernel's test counts them, then chunks of orbits for about six blocks
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
    s2.chunks = real_chunks;
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
