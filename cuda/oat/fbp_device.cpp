// FbpDevice (see fbp_device.hpp): the kernels' parameters and bounds from the geometry, the
// table, and the choice of kernel.
#include "cuda/oat/fbp_device.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/oat/params.hpp"
#include "cuda/core/check.hpp"
#include "cuda/oat/device_select.hpp"

namespace tomo::oat {

using namespace tomo::cuda;

namespace {
const OatGeometry& validated(const OatGeometry& g) {
  g.validate("oat cuda fbp");
  return g;
}

// S + 2X of the bounds below (samples): S the largest transducer position norm, X the grid's
// diagonal (positions relative to voxel 0; a = 1/(c₀Δt)).
double position_scale(const std::vector<double>& pos, const OatGeometry& g, double a) {
  double S = 0, X = 0;
  for (std::size_t q = 0; 3 * q < pos.size(); ++q)
    S = std::max(S, a * std::sqrt(pos[3 * q] * pos[3 * q] + pos[3 * q + 1] * pos[3 * q + 1] +
                                  pos[3 * q + 2] * pos[3 * q + 2]));
  for (int k = 0; k < 3; ++k) X += std::pow((g.grid.dims[k] - 1) * g.voxel_mm() * a, 2);
  return S + 2 * std::sqrt(X);
}

// eps of the shared-memory kernels (fbp_kernels.hpp "Time windows in shared memory"), a
// worst-case sum for their kr = fma(d², rsqrt(d²), −C) (u = 2⁻²⁴, lengths in samples, h the voxel
// pitch, V = 16 a bound on the voxels per thread, which are 8): coordinates rounded at |s| (S), the
// voxel position (2X) and the difference (D), u·(S + 2X + D + V·h) (the column centre is up to
// V·h/2 from a voxel); d² in five roundings (dy², dxy², A_m's base, A_m, the final fma) of terms at most A_m = d² + B, B = (V − 1)·h·|dz_c| the cross term, so δd ≤ 2.5u·(d + B/d), and
// B/d ≤ (V − 1)·h·(1 + V·h/(2·d_min)) with d_min the nearest transducer-voxel distance (≥ 1
// sample: the far transducers; nearer ones may take the double path more often, never less);
// rsqrt 4u·D; the fma's result (|kr| ≤ slot, or pinned z < 2·slot) 2u·slot; −C (+ the pinned
// offset < slot + 1) rounded once u·(|tau0h| + K + slot + 3).
float lean_eps(const std::vector<double>& pos, const OatGeometry& g, double d_max_mm, double d_min_mm, double a,
               float tau0h, int slot) {
  const double u = std::ldexp(1.0, -24), h = g.voxel_mm() * a, V = 16;
  const double D = d_max_mm * a, d_min = std::max(d_min_mm * a, 1.0);
  const double b_over_d = (V - 1) * h * (1 + V * h / (2 * d_min));
  const double bound = u * (position_scale(pos, g, a) + D + V * h) + 2.5 * u * (D + b_over_d) + 4 * u * D +
                       2 * u * slot + u * (std::abs(tau0h) + g.time.samples + slot + 3);
  return static_cast<float>(std::clamp(1.25 * bound, 1e-5, 0.05));
}

// The shared-memory kernels' window (voxel pitch in samples): the distances from one transducer to the
// voxel centres of a block's box span at most its diagonal; window_start() keeps two entries of
// margin below, so ⌈diagonal/(c₀Δt)⌉ + 7 entries cover every k the box can ask for
// (fbp_kernels.hpp), rounded up to a power of two; 0 beyond 2048.
int shared_slot(double voxel_samples) {
  using namespace cuda_detail;
  const int bx = kFbpBoxX - 1, by = kFbpBoxY - 1, bz = kFbpBoxZ - 1;
  const double diag = voxel_samples * std::sqrt(double(bx * bx + by * by + bz * bz));
  const double need = std::ceil(diag) + 7;
  int slot = 8;
  while (slot < need && slot <= 2048) slot *= 2;
  return slot > 2048 ? 0 : slot;
}
}  // namespace

std::string_view kernel_name(FbpKernel k) {
  switch (k) {
    case FbpKernel::deferred: return "deferred";
    case FbpKernel::pinned: return "pinned";
    case FbpKernel::texture: return "texture";
    case FbpKernel::ldg: return "ldg";
  }
  return "?";
}

FbpDevice::FbpDevice(const OatGeometry& g, FbpDeviceOptions o)
    : device_(select_cuda_device(o.device)),
      g_(validated(g)),
      opt_(o),
      weights_(fbp_weights<double>(g_)) {
  const int Q = g.transducer_count(), K = g.time.samples;
  cudaDeviceProp prop{};
  TOMO_CUDA_CHECK(cudaGetDeviceProperties(&prop, current_device()));
  // Beyond the 2D texture limits (K − 1 wide, Q high) the table is read from linear memory only.
  texture_ = K - 1 <= prop.maxTexture2D[0] && Q <= prop.maxTexture2D[1];
  if (!texture_)
    log_info("oat cuda fbp: a data table of ", K - 1, " x ", Q, " exceeds the 2D texture limit of ",
             prop.maxTexture2D[0], " x ", prop.maxTexture2D[1], "; no texture kernel");
  const Grid3& gr = g.grid;
  require_device_memory(16.0 * (K - 1) * Q + 4.0 * gr.count() + 16.0 * Q, "oat cuda fbp: data table and image");
  const double dt = g.time.dt_us(), c0 = g.c0_mm_per_us;
  params_.nx = gr.dims[0];
  params_.ny = gr.dims[1];
  params_.nz = gr.dims[2];
  params_.voxel = static_cast<float>(g.voxel_mm());
  params_.inv_c0dt = static_cast<float>(1.0 / (c0 * dt));
  params_.tau0h = static_cast<float>(g.time.t_min_us / dt + 0.5);
  params_.lin_scale = static_cast<float>(c0 * dt);
  params_.diff_scale = 0.5f;
  params_.transducers = Q;
  params_.width = K - 1;
  params_.voxel_d = g.voxel_mm();
  params_.inv_c0dt_d = 1.0 / (c0 * dt);
  params_.tau0_d = g.time.t_min_us / dt;
  params_.voxel_samples = static_cast<float>(g.voxel_mm() * params_.inv_c0dt_d);
  // Positions relative to voxel 0's centre, subtracted in double; kept in double for refine().
  std::vector<float4> tr(Q), tr_samples(Q);  // the latter in samples (c₀Δt), for the shared kernel
  std::vector<double> pos(3 * static_cast<std::size_t>(Q));
  double d_max = 0, d_min = 1e300;  // the largest and smallest transducer-voxel distances
  for (int q = 0; q < Q; ++q) {
    for (int a = 0; a < 3; ++a) pos[3 * q + a] = g.transducers[q][a] - gr.origin_mm[a];
    tr[q] = make_float4(static_cast<float>(pos[3 * q]), static_cast<float>(pos[3 * q + 1]),
                        static_cast<float>(pos[3 * q + 2]), static_cast<float>(q) + 0.5f);
    const double a = params_.inv_c0dt_d;
    tr_samples[q] = make_float4(static_cast<float>(pos[3 * q] * a), static_cast<float>(pos[3 * q + 1] * a),
                                static_cast<float>(pos[3 * q + 2] * a), 0.0f);
    double far = 0, near = 0;  // to the farthest and the nearest point of the grid's box of voxel centres
    for (int a = 0; a < 3; ++a) {
      const double e = (gr.dims[a] - 1) * g.voxel_mm();
      far += std::max(pos[3 * q + a] * pos[3 * q + a], (pos[3 * q + a] - e) * (pos[3 * q + a] - e));
      const double out = pos[3 * q + a] - std::clamp(pos[3 * q + a], 0.0, e);
      near += out * out;
    }
    d_max = std::max(d_max, std::sqrt(far));
    d_min = std::min(d_min, std::sqrt(near));
  }
  transducers_.resize(Q);
  transducers_.upload(tr);
  transducers_samples_.resize(Q);
  transducers_samples_.upload(tr_samples);
  positions_.resize(pos.size());
  positions_.upload(pos);
  params_.positions = positions_.data();
  // Bound of the fp32 k̃ error: coordinates, d² and d = d²·rsqrt(d²) (rsqrt to ~2⁻²²·⁸) give d to
  // ~4.5e-7·d, the final fma k̃ to an ulp; eps is twice that (~1e-3 on the paper-sized scene).
  const double bound = d_max * 4.5e-7 * params_.inv_c0dt_d + std::abs(d_max * params_.inv_c0dt_d) * 1.2e-7;
  params_.eps = static_cast<float>(std::clamp(2.0 * bound, 1e-5, 0.05));
  slot_ = shared_slot(g.voxel_mm() * params_.inv_c0dt_d);
  eps_lean_ = lean_eps(pos, g, d_max, d_min, params_.inv_c0dt_d, params_.tau0h, slot_);
  if (slot_ == 0)
    log_info("oat cuda fbp: a block's time window would exceed 2048 samples (voxels of ", g.voxel_mm(),
             " mm at ", c0 * dt, " mm per sample); no shared-memory kernel");
  image_.resize(gr.count());
  linear_table_.resize(static_cast<std::size_t>(K - 1) * Q);
  if (texture_) {
    table_ = CudaArray::of<float2>(ArrayExtent{static_cast<std::size_t>(K - 1), static_cast<std::size_t>(Q), 0});
    point_ = TextureObject(table_, TextureOptions::point_clamp().with_address(cudaAddressModeBorder));
  }
}

void FbpDevice::upload(std::span<const double> p) {
  const std::size_t Q = g_.transducers.size(), K = static_cast<std::size_t>(g_.time.samples);
  if (p.size() != Q * K)
    throw InputError(str_cat("oat cuda fbp: ", p.size(), " pressure samples, expected ", Q, " x ", K));
  synchronize();  // the previous upload may still read host_table_
  host_table_.resize(Q * (K - 1));
  for (std::size_t q = 0; q < Q; ++q) {
    const double* row = p.data() + q * K;
    const double w = weights_[q];
    for (std::size_t k = 0; k + 1 < K; ++k)
      host_table_[q * (K - 1) + k] = make_float2(static_cast<float>(w * 0.5 * (row[k] + row[k + 1])),
                                                 static_cast<float>(w * (row[k + 1] - row[k])));
  }
  if (texture_) table_.copy_from_host(host_table_.data(), stream_);
  linear_table_.upload_async(host_table_.data(), host_table_.size(), stream_);
}

void FbpDevice::upload_device(const float* p) {
  if (!p) throw Error("oat cuda fbp: null pressure");
  if (device_weights_.empty()) {
    device_weights_.resize(weights_.size());
    device_weights_.upload(weights_);
  }
  cuda_detail::launch_fbp_table(p, device_weights_.data(), g_.transducer_count(), g_.time.samples,
                                linear_table_.data(), stream_);
  if (texture_) table_.copy_from_device(linear_table_.data(), stream_);
}

cuda_detail::FbpSharedShape FbpDevice::shared_shape() const {
  cuda_detail::FbpSharedShape s;
  s.voxels_per_thread = 8;
  s.slot = slot_;
  // 16 KiB of windows per block: several blocks per SM, tiles long enough to amortise the barriers.
  s.tile = std::clamp(16384 / (8 * std::max(slot_, 8)), 1, cuda_detail::kFbpSharedMaxTile);
  return s;
}

cuda_detail::FbpDeferredList FbpDevice::deferred_list() {
  if (deferred_per_block_ == 0) {
    // Entries ≲ the pairs next to a sample: a fraction ≈ the pinned band (eps_lean + tau ≤ 2·eps_lean
    // + 1e-6 samples) of the 8·8·16 × Q pairs of a block; 4× that (symmetric scenes put whole
    // voxels' transducer sets next to a sample), at least 4M entries in all, at most a quarter of
    // the free memory (an overflow then costs the pinned kernel, not a wrong image).
    const std::size_t blocks = static_cast<std::size_t>(cuda_detail::fbp_deferred_blocks(params_));
    const double pairs = double(cuda_detail::kFbpBoxX * cuda_detail::kFbpBoxY * cuda_detail::kFbpBoxZ) *
                         params_.transducers;
    double per_block = std::max(4.0 * (2.0 * eps_lean_ + 1e-6) * pairs, 4.0e6 / double(blocks));
    std::size_t free_b = 0, total_b = 0;
    TOMO_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    per_block = std::min({per_block, 0.25 * double(free_b) / (8.0 * double(blocks)), pairs, 4.0e9});
    deferred_per_block_ =
        opt_.list_capacity > 0 ? opt_.list_capacity : static_cast<unsigned>(std::max(per_block, 1.0));
    deferred_entries_.resize(blocks * deferred_per_block_);
    deferred_counts_.resize(blocks);
    deferred_flag_.resize(1);
    log_debug("oat cuda fbp: deferred lists of ", deferred_per_block_, " entries per block, ", blocks, " blocks (",
              8.0 * double(blocks) * deferred_per_block_ / 1048576.0, " MiB)");
  }
  return {deferred_entries_.data(), deferred_counts_.data(), deferred_flag_.data(), deferred_per_block_};
}

void FbpDevice::run_deferred() {
  const cuda_detail::FbpDeferredList list = deferred_list();
  const cuda_detail::FbpSharedShape s = shared_shape();
  TOMO_CUDA_CHECK(cudaMemsetAsync(list.overflow, 0, sizeof(unsigned), stream_.get()));
  cuda_detail::launch_fbp_deferred(params_, eps_lean_, s, transducers_samples_.data(), linear_table_.data(),
                                   image_.data(), list, stream_);
  cuda_detail::launch_fbp_fixup(params_, s.voxels_per_thread, linear_table_.data(), image_.data(), list, stream_);
  unsigned flag = 0;
  TOMO_CUDA_CHECK(cudaMemcpyAsync(&flag, list.overflow, sizeof flag, cudaMemcpyDeviceToHost, stream_.get()));
  synchronize();
  deferred_overflow_ = flag != 0;
  if (!deferred_overflow_) return;
  if (!deferred_logged_)
    log_debug("oat cuda fbp: the deferred lists overflowed (", deferred_per_block_,
              " entries per block); the pinned kernel runs instead");
  deferred_logged_ = true;
  run(FbpKernel::pinned);
}

std::size_t FbpDevice::deferred_entries() const {
  if (deferred_per_block_ == 0) return 0;
  synchronize();
  std::size_t n = 0;
  for (unsigned c : deferred_counts_.to_host()) n += c;
  return n;
}

bool FbpDevice::available(FbpKernel k) const {
  switch (k) {
    case FbpKernel::deferred:
    case FbpKernel::pinned: return slot_ > 0;
    case FbpKernel::texture: return texture_;
    case FbpKernel::ldg: return true;
  }
  return false;
}

// The one place that picks the cuda FBP's kernel. deferred is the fastest with the exact contract
// (docs/perf/oat.md has the measured comparison); it needs a block's time window in shared memory,
// which fails only for voxels much larger than c₀Δt: then the texture kernel, whose one fetch per
// update is the next best, or, where the table also exceeds the 2D texture limits, the same reads
// through __ldg. pinned is never chosen here: run(deferred) falls back to it when its lists
// overflow. oat.fbp.read names a kernel outright ("shared": the deferred one); one that is not
// available on this geometry is an UnavailableError, not a silent substitute.
FbpKernel FbpDevice::choose(FbpRead read) const {
  auto must = [&](FbpKernel k) {
    if (!available(k))
      throw UnavailableError(str_cat("oat cuda fbp: oat.fbp.read = \"", enum_name(kFbpReadNames, read),
                                     "\" is not available on this geometry (see the log)"));
    return k;
  };
  switch (read) {
    case FbpRead::automatic: break;
    case FbpRead::shared: return must(FbpKernel::deferred);
    case FbpRead::texture: return must(FbpKernel::texture);
    case FbpRead::ldg: return FbpKernel::ldg;
  }
  if (available(FbpKernel::deferred)) return FbpKernel::deferred;
  return available(FbpKernel::texture) ? FbpKernel::texture : FbpKernel::ldg;
}

void FbpDevice::run(FbpKernel k) {
  if (!available(k))
    throw UnavailableError(str_cat("oat cuda fbp: the ", kernel_name(k), " kernel is not available on this geometry"));
  switch (k) {
    case FbpKernel::deferred: run_deferred(); break;
    case FbpKernel::pinned:
      cuda_detail::launch_fbp_pinned(params_, eps_lean_, shared_shape(), transducers_samples_.data(),
                                     linear_table_.data(), image_.data(), stream_);
      break;
    case FbpKernel::texture:
      cuda_detail::launch_fbp(params_, transducers_.data(), point_, linear_table_.data(), image_.data(),
                              cuda_detail::FbpFetch::texture, stream_);
      break;
    case FbpKernel::ldg:
      cuda_detail::launch_fbp(params_, transducers_.data(), point_, linear_table_.data(), image_.data(),
                              cuda_detail::FbpFetch::ldg, stream_);
      break;
  }
}

std::vector<float> FbpDevice::image() const {
  synchronize();
  return image_.to_host();
}

void FbpDevice::copy_image(float* device) const {
  if (!device) throw Error("oat cuda fbp: null image");
  TOMO_CUDA_CHECK(cudaMemcpyAsync(device, image_.data(), image_.size() * sizeof(float), cudaMemcpyDeviceToDevice,
                                  stream_.get()));
  synchronize();
}

}  // namespace tomo::oat
