// FbpDevice (see fbp_device.hpp).
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

// eps of the shared kernel, whose k̃ − ½ = fma(d², rsqrt(d²), −tau0h) runs in samples (a = 1/(c₀Δt)),
// from a worst-case sum (u = 2⁻²⁴, lengths in samples): coordinates rounded at |s| (S), the voxel
// position i·Δs (2X) and the difference (D) give u·(S + 2X + D) in d; d² in three roundings 1.5u·D;
// rsqrt's 2 ulp 4u·D; the fma and tau0h u·(D + 2·tau0h). 1.25× that (8.9e-4 on the paper scene,
// against 1.4e-3 for the texture kernel's 2× of a looser bound): fewer pairs take the double path.
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

float shared_eps(const std::vector<double>& pos, const OatGeometry& g, double d_max_mm, double a, float tau0h) {
  const double u = std::ldexp(1.0, -24);
  const double D = d_max_mm * a;
  const double bound = u * (position_scale(pos, g, a) + D) + 1.5 * u * D + 4 * u * D + u * (D + 2 * std::abs(tau0h));
  return static_cast<float>(std::clamp(1.25 * bound, 1e-5, 0.05));
}

// eps of the lean kernel (fbp_kernels.hpp "The lean variant"), the same kind of worst-case sum
// for its kr = fma(d², rsqrt(d²), −C) (u = 2⁻²⁴, lengths in samples, h the voxel pitch, V = 16 the
// most voxels per thread): coordinates as shared_eps, u·(S + 2X + D + V·h) (the column centre is
// up to V·h/2 from a voxel); d² in five roundings (dy², dxy², A_m's base, A_m, the final fma) of
// terms at most A_m = d² + B, B = (V − 1)·h·|dz_c| the cross term, so δd ≤ 2.5u·(d + B/d), and
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

// The shared variant's window (voxel pitch in samples): the distances from one transducer to the
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

FbpDevice::FbpDevice(const OatGeometry& g)
    : device_(select_cuda_device()),
      g_(validated(g)),
      weights_(fbp_weights<double>(g_)) {
  const int Q = g.transducer_count(), K = g.time.samples;
  cudaDeviceProp prop{};
  TOMO_CUDA_CHECK(cudaGetDeviceProperties(&prop, current_device()));
  // Beyond the 2D texture limits (K − 1 wide, Q high) the table is read from linear memory only.
  texture_ = K - 1 <= prop.maxTexture2D[0] && Q <= prop.maxTexture2D[1];
  if (!texture_)
    log_info("oat cuda fbp: a data table of ", K - 1, " x ", Q, " exceeds the 2D texture limit of ",
             prop.maxTexture2D[0], " x ", prop.maxTexture2D[1], "; no texture variant");
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
  params_.eps_shared = shared_eps(pos, g, d_max, params_.inv_c0dt_d, params_.tau0h);
  slot_ = shared_slot(g.voxel_mm() * params_.inv_c0dt_d);
  eps_lean_ = lean_eps(pos, g, d_max, d_min, params_.inv_c0dt_d, params_.tau0h, slot_);
  if (slot_ == 0)
    log_info("oat cuda fbp: a block's time window would exceed 2048 samples (voxels of ", g.voxel_mm(),
             " mm at ", c0 * dt, " mm per sample); no shared-memory variant");
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

void FbpDevice::run(cuda_detail::FbpMode mode) {
  if (mode != cuda_detail::FbpMode::exact_ldg && !texture_)
    throw UnavailableError("oat cuda fbp: the data table exceeds the texture limits; no texture variant");
  cuda_detail::launch_fbp(params_, transducers_.data(), point_, linear_table_.data(), image_.data(), mode, stream_);
}

cuda_detail::FbpSharedShape FbpDevice::shared_shape(int voxels_per_thread) const {
  cuda_detail::FbpSharedShape s;
  s.voxels_per_thread = voxels_per_thread;
  s.slot = slot_;
  // 16 KiB of windows per block: several blocks per SM, tiles long enough to amortise the barriers.
  s.tile = std::clamp(16384 / (8 * std::max(slot_, 8)), 1, cuda_detail::kFbpSharedMaxTile);
  return s;
}

void FbpDevice::run_shared(cuda_detail::FbpSharedMode mode, int voxels_per_thread, int slot, bool batched) {
  if (slot_ == 0 && slot <= 0)
    throw UnavailableError("oat cuda fbp: the time window of a block exceeds 2048 samples; no shared variant");
  cuda_detail::FbpSharedShape s = shared_shape(voxels_per_thread);
  if (slot > 0 && slot < s.slot && mode != cuda_detail::FbpSharedMode::checked)
    throw Error(
        str_cat("oat cuda fbp: windows of ", slot, " entries (", s.slot, " needed) only with the checked kernel"));
  if (slot > 0) s.slot = slot;
  s.batched = batched;
  cuda_detail::launch_fbp_shared(params_, s, transducers_samples_.data(), linear_table_.data(), image_.data(), mode,
                                 stream_);
}

void FbpDevice::run_lean(cuda_detail::FbpLeanMode mode, int voxels_per_thread, int slot) {
  if (slot_ == 0 && slot <= 0)
    throw UnavailableError("oat cuda fbp: the time window of a block exceeds 2048 samples; no shared variant");
  cuda_detail::FbpSharedShape s = shared_shape(voxels_per_thread);
  if (slot > 0 && slot < s.slot && mode != cuda_detail::FbpLeanMode::checked &&
      mode != cuda_detail::FbpLeanMode::pinned_checked)
    throw Error(
        str_cat("oat cuda fbp: windows of ", slot, " entries (", s.slot, " needed) only with the checked kernel"));
  if (slot > 0) s.slot = slot;
  cuda_detail::launch_fbp_lean(params_, eps_lean_, s, transducers_samples_.data(), linear_table_.data(),
                               image_.data(), mode, stream_);
}

cuda_detail::FbpDeferredList FbpDevice::deferred_list() {
  if (deferred_per_block_ == 0) {
    // Entries ≲ the pairs next to a sample: a fraction ≈ the pinned band (eps_lean + tau ≤ 2·eps_lean
    // + 1e-6 samples) of the 8·8·16 × Q pairs of a block; 4× that (symmetric scenes put whole
    // voxels' transducer sets next to a sample), at least 4M entries in all, at most a quarter of
    // the free memory (an overflow then costs the exact kernel, not a wrong image).
    const std::size_t blocks = static_cast<std::size_t>(cuda_detail::fbp_deferred_blocks(params_));
    const double pairs = double(cuda_detail::kFbpBoxX * cuda_detail::kFbpBoxY * cuda_detail::kFbpBoxZ) *
                         params_.transducers;
    double per_block = std::max(4.0 * (2.0 * eps_lean_ + 1e-6) * pairs, 4.0e6 / double(blocks));
    std::size_t free_b = 0, total_b = 0;
    TOMO_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    per_block = std::min({per_block, 0.25 * double(free_b) / (8.0 * double(blocks)), pairs, 4.0e9});
    deferred_per_block_ = deferred_forced_ > 0 ? deferred_forced_ : static_cast<unsigned>(std::max(per_block, 1.0));
    deferred_entries_.resize(blocks * deferred_per_block_);
    deferred_counts_.resize(blocks);
    deferred_flag_.resize(1);
    log_debug("oat cuda fbp: deferred lists of ", deferred_per_block_, " entries per block, ", blocks, " blocks (",
              8.0 * double(blocks) * deferred_per_block_ / 1048576.0, " MiB)");
  }
  return {deferred_entries_.data(), deferred_counts_.data(), deferred_flag_.data(), deferred_per_block_};
}

void FbpDevice::run_deferred(int voxels_per_thread) {
  if (slot_ == 0)
    throw UnavailableError("oat cuda fbp: the time window of a block exceeds 2048 samples; no shared variant");
  const cuda_detail::FbpDeferredList list = deferred_list();
  const cuda_detail::FbpSharedShape s = shared_shape(voxels_per_thread);
  TOMO_CUDA_CHECK(cudaMemsetAsync(list.overflow, 0, sizeof(unsigned), stream_.get()));
  cuda_detail::launch_fbp_deferred(params_, eps_lean_, s, transducers_samples_.data(), linear_table_.data(),
                                   image_.data(), list, stream_);
  cuda_detail::launch_fbp_fixup(params_, voxels_per_thread, linear_table_.data(), image_.data(), list, stream_);
  deferred_voxels_ = voxels_per_thread;
  unsigned flag = 0;
  TOMO_CUDA_CHECK(cudaMemcpyAsync(&flag, list.overflow, sizeof flag, cudaMemcpyDeviceToHost, stream_.get()));
  synchronize();
  deferred_overflow_ = flag != 0;
  if (!deferred_overflow_) return;
  if (!deferred_logged_)
    log_debug("oat cuda fbp: the deferred lists overflowed (", deferred_per_block_,
              " entries per block); the pinned lean kernel runs instead");
  deferred_logged_ = true;
  run_lean(cuda_detail::FbpLeanMode::pinned, voxels_per_thread);
}

void FbpDevice::set_deferred_capacity(unsigned per_block) {
  synchronize();  // a run in flight may still use the lists
  deferred_forced_ = per_block;
  deferred_per_block_ = 0;
  deferred_entries_.clear();
}

void FbpDevice::run_fixup() {
  if (deferred_per_block_ == 0) throw Error("oat cuda fbp: run_fixup() before run_deferred()");
  cuda_detail::launch_fbp_fixup(params_, deferred_voxels_, linear_table_.data(), image_.data(), deferred_list(),
                                stream_);
}

std::size_t FbpDevice::deferred_entries() const {
  if (deferred_per_block_ == 0) return 0;
  synchronize();
  std::size_t n = 0;
  for (unsigned c : deferred_counts_.to_host()) n += c;
  return n;
}

bool FbpDevice::available(FbpVariant v) const {
  return v == FbpVariant::ldg || (v == FbpVariant::texture && texture_) || (v == FbpVariant::shared && slot_ > 0);
}

FbpChoice FbpDevice::best() const {
  if (available(kDefaultFbpVariant.variant)) return kDefaultFbpVariant;
  for (FbpVariant v : {FbpVariant::shared, FbpVariant::texture})
    if (available(v)) return {v, 8};
  return {FbpVariant::ldg, 8};
}

void FbpDevice::run(const FbpChoice& c) {
  switch (c.variant) {
    case FbpVariant::texture: run(cuda_detail::FbpMode::exact); break;
    case FbpVariant::ldg: run(cuda_detail::FbpMode::exact_ldg); break;
    case FbpVariant::shared:
      if (c.lean && c.deferred)
        run_deferred(c.voxels_per_thread);
      else if (c.lean)
        run_lean(c.fast                    ? cuda_detail::FbpLeanMode::fast
                 : c.pinned && c.unrolled ? cuda_detail::FbpLeanMode::pinned_unrolled
                 : c.pinned               ? cuda_detail::FbpLeanMode::pinned
                                          : cuda_detail::FbpLeanMode::exact,
                 c.voxels_per_thread);
      else
        run_shared(cuda_detail::FbpSharedMode::exact, c.voxels_per_thread, 0, c.batched);
      break;
  }
}

void FbpDevice::run_fetch_probe() {
  if (!texture_) throw UnavailableError("oat cuda fbp: no data texture (beyond the limits) to probe");
  cuda_detail::launch_fbp_fetch_probe(params_, transducers_.data(), point_, image_.data(), stream_);
}

std::vector<float> FbpDevice::image() const {
  synchronize();
  return image_.to_host();
}

}  // namespace tomo::oat
