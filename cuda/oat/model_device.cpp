// ModelDevice (see model_device.hpp).
#include "cuda/oat/model_device.hpp"

#include <cuda_runtime.h>

#include <algorithm>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/oat/params.hpp"
#include "compute/oat/srt_symmetry.hpp"
#include "cuda/core/check.hpp"
#include "cuda/oat/device_select.hpp"

namespace tomo::oat {

using namespace tomo::cuda;

namespace {
// The gather's tiles for this geometry: the ball every shell is cut to (the support about the grid
// centre), the farthest patch from its transducer, and kGatherBlocksPerSm blocks per multiprocessor.
cuda_detail::GatherParams gather_plan(const OatGeometry& g, const cuda_detail::SrtParams& p,
                                      const std::vector<ShellFrame<float>>& frames) {
  const Vec3d c = g.grid_centre_mm();
  const float centre[3] = {static_cast<float>(c[0]), static_cast<float>(c[1]), static_cast<float>(c[2])};
  const double rho = cap_radius_mm(g);
  double far = 0;
  for (const ShellFrame<float>& f : frames) far = std::max(far, static_cast<double>(f.D) + rho);
  int device = 0, sms = 0;
  TOMO_CUDA_CHECK(cudaGetDevice(&device));
  TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return cuda_detail::plan_gather(p, centre, static_cast<float>(rho), static_cast<float>(far),
                                  cuda_detail::kGatherTile, cuda_detail::kGatherBlocksPerSm * std::max(1, sms));
}

const OatGeometry& validated(const OatGeometry& g, const ModelOptions& o) {
  if (o.kind != ModelKind::interpolation)
    throw UnavailableError("oat cuda: model '" + to_string(o.kind) + "' is not implemented");
  g.validate("oat cuda model");
  return g;
}
}  // namespace

ModelDevice::ModelDevice(const OatGeometry& g0, const ModelOptions& o, int device)
    : device_(select_cuda_device(device)),
      fetch_(o.interpolation == Interpolation::hardware ? cuda_detail::SrtFetch::hardware : cuda_detail::SrtFetch::exact) {
  const OatGeometry& g = validated(g0, o);
  const int Q = g.transducer_count(), K = g.time.samples;
  const std::size_t N = g.grid.count(), M = static_cast<std::size_t>(K) + 2;
  require_device_memory(4.0 * (2.0 * N + static_cast<double>(Q) * (M + 2.0 * K)) + 56.0 * Q,
                        "oat cuda model: α, its texture, g, p and u");
  srt_.grid = grid_params<float>(g);
  srt_.transducers = Q;
  srt_.shells = static_cast<int>(M);
  srt_.c0 = static_cast<float>(g.c0_mm_per_us);
  srt_.t_min = static_cast<float>(g.time.t_min_us);
  srt_.dt = static_cast<float>(g.time.dt_us());
  srt_.h = static_cast<float>(patch_mm(g, o));
  time_.transducers = Q;
  time_.samples = K;
  time_.t_min = srt_.t_min;
  time_.dt = srt_.dt;
  time_.cD = static_cast<float>(d_coefficient<double>(g.gruneisen, g.c0_mm_per_us, g.time.dt_us()));
  const std::vector<ShellFrame<float>> frames = shell_frames<float>(g);
  frames_.resize(frames.size());
  frames_.upload(frames);
  srt_.frames = frames_.data();
  // The exact forward by the quarter-turn symmetry where the geometry has it (the hardware
  // forward reads a texture).
  const SrtSymmetry sym = fetch_ == cuda_detail::SrtFetch::exact ? plan_srt_symmetry(g) : SrtSymmetry{};
  if (sym.ok) {
    const std::vector<SymmetryPass<float>> passes = symmetry_passes_float(sym);
    passes_.resize(passes.size());
    passes_.upload(passes);
    orbit_first_.resize(sym.orbit_first.size());
    orbit_first_.upload(sym.orbit_first);
    sym_.passes = passes_.data();
    sym_.orbit_first = orbit_first_.data();
    sym_.orbits = sym.orbits;
    sym_.n = sym.n;
    require_device_memory(16.0 * static_cast<double>(N), "oat cuda model: the image interleaved with its turns");
    c4_.resize(N);
    symmetric_ = true;
    symmetric_adjoint_ = !o.reproducible;
  } else if (fetch_ == cuda_detail::SrtFetch::exact) {
    log_debug("oat cuda model: the general H_srt kernel (no quarter-turn symmetry: ", sym.why, ")");
  }
  // The gather's tiles, fixed-point scratch, azimuth table and partial images only where it runs.
  if (!symmetric_adjoint_) {
    gather_ = gather_plan(g, srt_, frames);
    fixed_.resize(cuda_detail::kGatherScratch);
    gather_.fixed = fixed_.data();
    trig_.resize(cuda_detail::trig_table_size(cuda_detail::kTrigTableN));
    cuda_detail::launch_trig_table(trig_.data(), cuda_detail::kTrigTableN, stream_.get());
    gather_.trig = trig_.data();
    gather_.trig_n = cuda_detail::kTrigTableN;
    if (gather_.chunks > 1) {
      require_device_memory(4.0 * gather_.chunks * static_cast<double>(N), "oat cuda model: the gather's partial images");
      partial_.resize(static_cast<std::size_t>(gather_.chunks) * N);
    }
  }
  if (g.eir.active()) {
    const std::vector<float> taps(g.eir.taps.begin(), g.eir.taps.end());
    taps_.resize(taps.size());
    taps_.upload(taps);
    taps_count_ = static_cast<int>(taps.size());
  }
  alpha_.resize(N);
  g_.resize(static_cast<std::size_t>(Q) * M);
  p_.resize(static_cast<std::size_t>(Q) * K);
  u_.resize(static_cast<std::size_t>(Q) * K);
  staging_.resize(std::max(N, static_cast<std::size_t>(Q) * K));
  volume_ = CudaArray::of<float>(ArrayExtent{static_cast<std::size_t>(g.grid.dims[0]),
                                             static_cast<std::size_t>(g.grid.dims[1]),
                                             static_cast<std::size_t>(g.grid.dims[2])});
  volume_tex_ = TextureObject(volume_, TextureOptions::linear_clamp().with_address(cudaAddressModeBorder));
}

void ModelDevice::upload_alpha(std::span<const double> alpha) {
  if (alpha.size() != alpha_.size())
    throw Error(str_cat("oat cuda model: α of ", alpha.size(), " voxels, the grid has ", alpha_.size()));
  synchronize();  // an earlier async copy may still read staging_
  std::copy(alpha.begin(), alpha.end(), staging_.data());
  alpha_.upload_async(staging_.data(), alpha.size(), stream_);
}

void ModelDevice::upload_data(std::span<const double> u) {
  if (u.size() != u_.size())
    throw Error(str_cat("oat cuda model: data of ", u.size(), " samples, expected ", u_.size()));
  synchronize();
  std::copy(u.begin(), u.end(), staging_.data());
  u_.upload_async(staging_.data(), u.size(), stream_);
}

namespace {
void copy_device(float* dst, const float* src, std::size_t n, cudaStream_t stream) {
  if (!dst || !src) throw Error("oat cuda model: null device pointer");
  TOMO_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
}
}  // namespace

void ModelDevice::load_alpha(const float* alpha) { copy_device(alpha_.data(), alpha, alpha_.size(), stream_.get()); }
void ModelDevice::load_data(const float* u) { copy_device(u_.data(), u, u_.size(), stream_.get()); }
void ModelDevice::store_alpha(float* alpha) const {
  copy_device(alpha, alpha_.data(), alpha_.size(), stream_.get());
  synchronize();
}
void ModelDevice::store_data(float* u) const {
  copy_device(u, u_.data(), u_.size(), stream_.get());
  synchronize();
}

std::string ModelDevice::describe() const {
  return str_cat(fetch_ == cuda_detail::SrtFetch::hardware ? "hardware" : "exact", " interpolation",
                 symmetric_ ? str_cat(", quarter-turn symmetric forward", symmetric_adjoint_ ? " and transpose" : "", " (",
                                      sym_.orbits, " orbits)")
                            : std::string(),
                 symmetric_adjoint_ ? std::string() : ", fixed-point gather transpose", ": ",
                 device_);
}

void ModelDevice::forward() {
  if (fetch_ == cuda_detail::SrtFetch::hardware) volume_.copy_from_device(alpha_.data(), stream_);
  if (symmetric_)
    cuda_detail::launch_srt_symmetric(srt_, sym_, alpha_.data(), c4_.data(), g_.data(), stream_);
  else
    cuda_detail::launch_srt(srt_, alpha_.data(), volume_tex_, g_.data(), fetch_, stream_);
  cuda_detail::launch_d(time_, g_.data(), p_.data(), stream_);
  cuda_detail::launch_eir(time_, taps_.data(), taps_count_, p_.data(), u_.data(), stream_);
}

void ModelDevice::adjoint() {
  cuda_detail::launch_eir_adjoint(time_, taps_.data(), taps_count_, u_.data(), p_.data(), stream_);
  cuda_detail::launch_d_adjoint(time_, p_.data(), g_.data(), stream_);
  if (symmetric_adjoint_)
    cuda_detail::launch_srt_symmetric_adjoint(srt_, sym_, g_.data(), c4_.data(), alpha_.data(), stream_);
  else
    cuda_detail::launch_srt_gather(srt_, gather_, g_.data(), alpha_.data(), partial_.data(), stream_);
}

std::vector<float> ModelDevice::alpha() const {
  synchronize();
  return alpha_.to_host();
}

std::vector<float> ModelDevice::data() const {
  synchronize();
  return u_.to_host();
}

void ModelDevice::stage_to_host(const DeviceBuffer<float>& from, std::span<double> to) {
  if (to.size() != from.size())
    throw Error(str_cat("oat cuda model: a host vector of ", to.size(), " values for ", from.size()));
  from.download_async(staging_.data(), from.size(), stream_.get());
  synchronize();
  std::copy(staging_.data(), staging_.data() + from.size(), to.begin());
}

void ModelDevice::download_alpha(std::span<double> alpha) { stage_to_host(alpha_, alpha); }
void ModelDevice::download_data(std::span<double> u) { stage_to_host(u_, u); }

}  // namespace tomo::oat
