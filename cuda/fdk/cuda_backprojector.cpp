// `cuda` backend of the fdk back-projection (see cuda_backprojector.hpp).
#include "cuda/fdk/cuda_backprojector.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/fdk/kernels.hpp"

namespace tomo::fdk::cuda_impl {

using namespace tomo::cuda;
namespace cd = cuda_detail;

CudaBackprojector::DeviceSelection::DeviceSelection() { select_device(runtime_options().cuda_device); }

CudaBackprojector::CudaBackprojector() = default;

CudaBackprojector::~CudaBackprojector() {
  try {
    compute_.synchronize();
    copy_.synchronize();
  } catch (...) {
  }
  unregister();
}

void CudaBackprojector::reset(const Grid3& grid) {
  compute_.synchronize();
  grid_ = grid;
  const std::size_t slice = static_cast<std::size_t>(grid.dims[0]) * grid.dims[1];
  std::size_t free_b = 0, total_b = 0;
  TOMO_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  // Keep room for two projection buffers of the largest launch (RabbitCT: 2·32·4.8 MB).
  const double budget = options_.device_memory_mb > 0 ? options_.device_memory_mb * 1048576.0
                                                      : 0.85 * static_cast<double>(free_b) - 512.0 * 1048576.0;
  const auto fit = static_cast<long long>(budget / (slice * sizeof(float)));
  if (fit >= grid.dims[2]) {
    slab_nz_ = grid.dims[2];
  } else {
    slab_nz_ = static_cast<int>(std::max<long long>(cd::kVoxelsPerThread, fit / cd::kVoxelsPerThread * cd::kVoxelsPerThread));
    host_volume_.assign(grid.count(), 0.0f);
    log_info("fdk cuda: volume of ", grid.count() * 4 / 1048576, " MiB exceeds the budget of ",
             static_cast<long long>(budget / 1048576), " MiB: z-slabs of ", slab_nz_, " slices");
  }
  if (slab_nz_ >= grid.dims[2]) host_volume_.clear();
  volume_.resize(slice * slab_nz_);
  volume_.fill_zero(compute_);
}

void CudaBackprojector::prepare(const ProjectionView& all) {
  ensure_buffers(all.sx, all.sy, per_launch());
  unregister();
  const std::size_t count = static_cast<std::size_t>(all.sx) * all.sy * all.count;
  if (!all.pixels || count == 0) return;
  if (cudaHostRegister(const_cast<float*>(all.pixels), count * sizeof(float), cudaHostRegisterDefault) ==
      cudaSuccess) {
    registered_ = all.pixels;
  } else {
    (void)cudaGetLastError();
    log_debug("fdk cuda: could not page-lock the projections; copies will be synchronous");
  }
}

void CudaBackprojector::backproject(const ProjectionView& b) {
  if (volume_.empty()) throw Error("fdk cuda: backproject() before reset()");
  const int per_launch = this->per_launch();
  ensure_buffers(b.sx, b.sy, per_launch);
  const bool exact = options_.interpolation == Interpolation::exact;
  const std::size_t image = static_cast<std::size_t>(b.sx) * b.sy;
  for (int n0 = 0; n0 < b.count; n0 += per_launch) {
    const int cnt = std::min(per_launch, b.count - n0);
    ProjectionBuffer& buf = *buffers_[next_];
    next_ ^= 1;
    // The copy into this buffer waits until the kernels that read it last have finished.
    if (buf.in_use) copy_.wait(buf.consumed);
    copy_to_array(buf.array, ArrayExtent{static_cast<std::size_t>(b.sx), static_cast<std::size_t>(b.sy),
                                         static_cast<std::size_t>(cnt)},
                  sizeof(float), b.pixels + n0 * image, cudaMemcpyDefault, copy_);
    buf.copied.record(copy_);
    compute_.wait(buf.copied);
    std::array<float, cd::kMaxProjectionsPerLaunch * 12> m{};
    for (int n = 0; n < cnt; ++n)
      for (int e = 0; e < 12; ++e) m[12 * n + e] = static_cast<float>(b.matrices[n0 + n].a[e]);
    run_slabs(exact ? buf.point : buf.linear, m.data(), cnt, exact);
    buf.consumed.record(compute_);
    buf.in_use = true;
  }
}

void CudaBackprojector::synchronize() {
  copy_.synchronize();
  compute_.synchronize();
}

VolumeF CudaBackprojector::volume() {
  synchronize();
  VolumeF v(grid_);
  if (host_volume_.empty())
    volume_.download(v.data.data());
  else
    v.data = host_volume_;
  return v;
}

std::string CudaBackprojector::describe() const {
  auto devs = list_devices();
  const std::string dev = devs.empty() ? "?" : tomo::cuda::describe(devs[std::min<std::size_t>(
                                                    devs.size() - 1, static_cast<std::size_t>(current_device()))]);
  return "cuda (" + dev + ", " + to_string(options_.interpolation) + " bilinear, " +
         (host_volume_.empty() ? std::string("volume resident") : "z-slabs of " + std::to_string(slab_nz_)) + ")";
}

int CudaBackprojector::per_launch() const {
  return options_.projections_per_launch > 0 ? std::min(options_.projections_per_launch, cd::kMaxProjectionsPerLaunch)
                                             : 32;
}

void CudaBackprojector::ensure_buffers(int sx, int sy, int layers) {
  if (buffers_[0] && sx_ == sx && sy_ == sy && layers_ == layers) return;
  synchronize();
  sx_ = sx;
  sy_ = sy;
  layers_ = layers;
  TextureOptions lin = TextureOptions::linear_clamp().with_address(cudaAddressModeBorder);
  TextureOptions pt = TextureOptions::point_clamp().with_address(cudaAddressModeBorder);
  for (auto& b : buffers_) {
    b = std::make_unique<ProjectionBuffer>();
    b->array = CudaArray::of<float>(
        ArrayExtent{static_cast<std::size_t>(sx), static_cast<std::size_t>(sy), static_cast<std::size_t>(layers)},
        cudaArrayLayered);
    b->linear = TextureObject(b->array, lin);
    b->point = TextureObject(b->array, pt);
  }
  next_ = 0;
}

void CudaBackprojector::run_slabs(const TextureObject& tex, const float* matrices, int count, bool exact) {
  const std::size_t slice = static_cast<std::size_t>(grid_.dims[0]) * grid_.dims[1];
  for (int k0 = 0; k0 < grid_.dims[2]; k0 += slab_nz_) {
    const int nz = std::min(slab_nz_, grid_.dims[2] - k0);
    const bool slabbed = !host_volume_.empty();
    if (slabbed) volume_.upload_async(host_volume_.data() + k0 * slice, nz * slice, compute_);
    cd::SlabView s;
    s.volume = volume_.data();
    s.nx = grid_.dims[0];
    s.ny = grid_.dims[1];
    s.nz = nz;
    s.k0 = k0;
    for (int a = 0; a < 3; ++a) {
      s.origin[a] = static_cast<float>(grid_.origin_mm[a]);
      s.voxel[a] = static_cast<float>(grid_.voxel_mm[a]);
    }
    cd::launch_backproject(s, tex, matrices, count, exact, compute_);
    if (slabbed) {
      volume_.download_async(host_volume_.data() + k0 * slice, nz * slice, compute_);
      compute_.synchronize();  // host_volume_ is pageable: keep the slab round trip ordered
    }
  }
}

void CudaBackprojector::unregister() {
  if (registered_) TOMO_CUDA_LOG(cudaHostUnregister(const_cast<float*>(registered_)));
  registered_ = nullptr;
}

void CudaBackprojector::load_volume(const float* src) {
  if (volume_.empty()) throw Error("fdk cuda: load_volume() before reset()");
  const std::size_t n = grid_.count();
  if (host_volume_.empty())
    TOMO_CUDA_CHECK(cudaMemcpyAsync(volume_.data(), src, n * sizeof(float), cudaMemcpyDefault, compute_));
  else
    TOMO_CUDA_CHECK(cudaMemcpy(host_volume_.data(), src, n * sizeof(float), cudaMemcpyDefault));
}

const float* CudaBackprojector::device_volume() const {
  return host_volume_.empty() && !volume_.empty() ? volume_.data() : nullptr;
}

void CudaBackprojector::store_volume(float* dst) {
  synchronize();
  const std::size_t n = grid_.count();
  const void* src = host_volume_.empty() ? static_cast<const void*>(volume_.data()) : host_volume_.data();
  TOMO_CUDA_CHECK(cudaMemcpy(dst, src, n * sizeof(float), cudaMemcpyDefault));
}

namespace {

const BackendRegistrar<ConeBeamBackprojector> kRegisterCuda(
    {"cuda", kPriorityCuda, [] { return tomo::cuda::cuda_availability(); },
     [] { return std::make_unique<CudaBackprojector>(); }});

}  // namespace
}  // namespace tomo::fdk::cuda_impl
