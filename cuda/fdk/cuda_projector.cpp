// `cuda` cone-beam projector pair (see cuda_projector.hpp).
#include "cuda/fdk/cuda_projector.hpp"

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
#include "cuda/fdk/projector_kernels.hpp"
#include "cuda/fdk/voxel_back_kernels.hpp"
#include "compute/fdk/orbit_symmetry.hpp"
#include "compute/fdk/voxel_back_fdk.hpp"

namespace tomo::fdk::cuda_impl {

using namespace tomo::cuda;
namespace cd = cuda_detail;

CudaProjector::DeviceSelection::DeviceSelection() { select_device(runtime_options().cuda_device); }

namespace {

// B's sampler per interpolation setting: the texture unit's filter, or exact fp32 weights on
// loads (bench_fdk --b-variants, docs/perf/fdk.md).
cd::Sampling voxel_back_sampling(Interpolation m) {
  return m == Interpolation::hardware ? cd::Sampling::hardware : cd::Sampling::loads;
}


// Every view once, in orbit order (the turn-symmetric B's packing takes the whole stack).
bool all_in_order(std::span<const int> views, int n) {
  if (views.empty()) return true;
  if (static_cast<int>(views.size()) != n) return false;
  for (int k = 0; k < n; ++k)
    if (views[k] != k) return false;
  return true;
}

}  // namespace

CudaProjector::CudaProjector() = default;

CudaProjector::~CudaProjector() {
  try {
    stream_.synchronize();
  } catch (...) {
  }
}

void CudaProjector::setup(const ConeGeometry& g) {
  std::vector<ViewRays> rays(g.views());
  for (int n = 0; n < g.views(); ++n) rays[n] = view_rays(g.grid, g.matrices[n], n);  // degenerate views fail here
  stream_.synchronize();
  g_ = g;
  rays_ = DeviceBuffer<ViewRays>{std::span<const ViewRays>(rays)};
  view_lists_.clear();
  const ArrayExtent e{static_cast<std::size_t>(g.grid.dims[0]), static_cast<std::size_t>(g.grid.dims[1]),
                      static_cast<std::size_t>(g.grid.dims[2])};
  volume_array_ = CudaArray::of<float>(e);
  linear_ = TextureObject(volume_array_, TextureOptions::linear_clamp().with_address(cudaAddressModeBorder));
  point_ = TextureObject(volume_array_, TextureOptions::point_clamp().with_address(cudaAddressModeBorder));
  voxel_views_.assign(12 * static_cast<std::size_t>(g.views()), 0.0f);
  std::vector<float> weights(cd::kPixelWeightFloats * static_cast<std::size_t>(g.views()));
  for (int n = 0; n < g.views(); ++n) {
    const VoxelView v = voxel_view(g.grid, g.matrices[n], n);
    for (int e = 0; e < 12; ++e) voxel_views_[12 * static_cast<std::size_t>(n) + e] = static_cast<float>(v.p[e]);
    float* w = weights.data() + cd::kPixelWeightFloats * static_cast<std::size_t>(n);
    for (int a = 0; a < 3; ++a) {
      w[a] = static_cast<float>(v.du_mm[a]);
      w[3 + a] = static_cast<float>(v.dv_mm[a]);
      w[6 + a] = static_cast<float>(v.d1_mm[a]);
    }
    w[9] = static_cast<float>(v.scale);
  }
  pixel_weights_ = DeviceBuffer<float>{std::span<const float>(weights)};
  all_in_front_ = every_voxel_in_front(g);
  z_invariant_ = true;  // as floats, the kernel's matrices
  for (int n = 0; n < g.views(); ++n)
    if (voxel_views_[12 * static_cast<std::size_t>(n) + 2] != 0.0f || voxel_views_[12 * static_cast<std::size_t>(n) + 10] != 0.0f)
      z_invariant_ = false;
  // The orbit's turn symmetry: four (quarter turns) or two (half turns) views a texel of the
  // hardware B, checked on the double matrices; the N/k layers must fit a layered texture.
  {
    constexpr int kMaxLayers = 2048;
    std::vector<std::array<double, 12>> p(g.views());
    for (int n = 0; n < g.views(); ++n) p[n] = voxel_view(g.grid, g.matrices[n], n).p;
    OrbitSymmetry turn = orbit_symmetry(g.grid, p, 4);
    if (turn.order == 1) turn = orbit_symmetry(g.grid, p, 2);
    turn_k_ = all_in_front_ && turn.order > 1 && g.views() / turn.order <= kMaxLayers ? turn.order : 1;
    turn_sense_ = turn.sense;
    std::vector<float> inv_c2(g.views(), 1.0f);
    for (std::size_t m = 0; turn_k_ > 1 && m < inv_c2.size(); ++m)
      inv_c2[m] = static_cast<float>(1.0 / (turn.scale[m] * turn.scale[m]));
    turn_inv_c2_ = DeviceBuffer<float>{std::span<const float>(inv_c2)};
    turn_weight_max_ = cd::turn_weight_max(weights.data(), inv_c2.data(), g.views(), g.sx, g.sy);
    turn_max_.resize(1);
    turn_linear_ = TextureObject();
    turn_surface_ = SurfaceObject();
    turn_layers_ = CudaArray();
    log_debug("fdk cuda projector: hardware B by turns of the orbit: ", turn_k_ > 1 ? str_cat(turn_k_, " views a texel") : "no",
              turn_k_ > 1 ? "" : str_cat(" (", all_in_front_ ? turn.reason : "a voxel behind a source", ")"));
  }
  // B reads the stack in chunks of up to kDetectorLayers views through one layered texture.
  constexpr int kDetectorLayers = 256;
  const ArrayExtent d{static_cast<std::size_t>(g.sx), static_cast<std::size_t>(g.sy),
                      static_cast<std::size_t>(std::min(g.views(), kDetectorLayers))};
  detector_ = CudaArray::of<float>(d, cudaArrayLayered | cudaArraySurfaceLoadStore);
  detector_surface_ = SurfaceObject(detector_);
  detector_linear_ = TextureObject(detector_, TextureOptions::linear_clamp().with_address(cudaAddressModeBorder));
  padded_.clear();  // made by the first B that samples by loads
  tiled_scratch_.clear();  // made by the first Aᵀ
  x_.clear();
  y_.clear();
  staging_.set_slab(0);
}

std::size_t CudaProjector::stack_size(std::span<const int> views) const {
  return (views.empty() ? static_cast<std::size_t>(g_.views()) : views.size()) * g_.image_size();
}

void CudaProjector::check(std::size_t voxels, std::size_t pixels, std::span<const int> views) const {
  if (voxels != g_.grid.count() || pixels != stack_size(views))
    throw Error(str_cat("fdk cuda projector: ", voxels, " voxels and ", pixels, " pixels given, the geometry has ",
                        g_.grid.count(), " and ", stack_size(views)));
  for (int v : views)
    if (v < 0 || v >= g_.views()) throw Error(str_cat("fdk cuda projector: view ", v, " of ", g_.views()));
}

const int* CudaProjector::device_views(std::span<const int> views) {
  std::vector<int> key(views.begin(), views.end());
  if (key.empty())
    for (int n = 0; n < g_.views(); ++n) key.push_back(n);
  auto it = view_lists_.find(key);
  if (it != view_lists_.end()) return it->second.data();
  if (view_lists_.size() >= 256) {  // bounded: a caller cycling through ever new lists
    stream_.synchronize();
    view_lists_.clear();
  }
  DeviceBuffer<int> buf{std::span<const int>(key)};
  const int* p = buf.data();
  view_lists_.emplace(std::move(key), std::move(buf));
  return p;
}

struct CudaProjector::Launch {
  static cd::RayLaunch make(CudaProjector& self, std::span<const int> views) {
    cd::RayLaunch l;
    l.rays = self.rays_.data();
    l.views = self.device_views(views);
    l.count = views.empty() ? self.g_.views() : static_cast<int>(views.size());
    l.sx = self.g_.sx;
    l.sy = self.g_.sy;
    l.dims = self.g_.grid.dims;
    l.step_mm = step_mm(self.g_.grid, self.options_);
    return l;
  }
};

void CudaProjector::load_volume(const float* x) {
  copy_to_array(volume_array_, volume_array_.extent(), sizeof(float), x, cudaMemcpyDeviceToDevice, stream_);
}

void CudaProjector::forward_device(const float* x, float* y, std::span<const int> views) {
  if (!rays_.data()) throw Error("fdk cuda projector: forward() before setup()");
  check(g_.grid.count(), stack_size(views), views);
  load_volume(x);
  const bool hardware = options_.interpolation == Interpolation::hardware;
  cd::launch_forward(Launch::make(*this, views), hardware ? linear_.get() : point_.get(), hardware, y, stream_);
}

void CudaProjector::back_device(const float* y, float* x, std::span<const int> views) {
  if (!rays_.data()) throw Error("fdk cuda projector: back() before setup()");
  check(g_.grid.count(), stack_size(views), views);
  TOMO_CUDA_CHECK(cudaMemsetAsync(x, 0, g_.grid.count() * sizeof(float), stream_));
  if (tiled_scratch_.size() == 0) {
    // Each pass of views adds the whole volume once: as many views a pass as 1 GiB of rays, or an
    // eighth of the free memory, holds (64 views of 512², 26 of 1248×960 on an H200).
    std::size_t free = 0, total = 0;
    TOMO_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    tiled_views_ = cd::tiled_views_per_pass(g_.grid.dims, g_.sx, g_.sy, std::min(std::size_t(1) << 30, free / 8));
    tiled_scratch_.resize(cd::tiled_scratch_floats(g_.grid.dims, g_.sx, g_.sy, tiled_views_));
  }
  cd::launch_back_tiled(Launch::make(*this, views), y, x, tiled_scratch_.data(), tiled_views_, stream_);
}

void CudaProjector::back_voxel_device(const float* y, float* x, std::span<const int> views) {
  if (!rays_.data()) throw Error("fdk cuda projector: back_voxel() before setup()");
  check(g_.grid.count(), stack_size(views), views);
  TOMO_CUDA_CHECK(cudaMemsetAsync(x, 0, g_.grid.count() * sizeof(float), stream_));
  cd::VoxelBack l;
  l.x = x;
  l.nx = g_.grid.dims[0];
  l.ny = g_.grid.dims[1];
  l.nz = g_.grid.dims[2];
  for (int a = 0; a < 3; ++a) {
    l.origin[a] = static_cast<float>(g_.grid.origin_mm[a]);
    l.voxel[a] = static_cast<float>(g_.grid.voxel_mm[a]);
  }
  l.all_in_front = all_in_front_;
  l.z_invariant = z_invariant_;
  const cd::Sampling sampling = voxel_back_sampling(options_.interpolation);
  if (sampling == cd::Sampling::loads && padded_.size() == 0) {  // its border stays 0: written once
    padded_.resize(static_cast<std::size_t>(g_.sx + 2) * (g_.sy + 2) * detector_.extent().depth);
    TOMO_CUDA_CHECK(cudaMemsetAsync(padded_.data(), 0, padded_.size() * sizeof(float), stream_));
  }
  l.padded = padded_.data();
  l.sx = g_.sx;
  l.sy = g_.sy;
  const int count = views.empty() ? g_.views() : static_cast<int>(views.size());
  if (sampling == cd::Sampling::hardware && turn_k_ > 1 && all_in_order(views, g_.views())) {
    if (!turn_layers_.get()) {
      const ArrayExtent e{static_cast<std::size_t>(g_.sx), static_cast<std::size_t>(g_.sy),
                          static_cast<std::size_t>(g_.views() / turn_k_)};
      try {  // half the stack's bytes, all views at once: where that does not fit, the general path
        turn_layers_ = CudaArray(turn_k_ == 4 ? cudaCreateChannelDescHalf4() : cudaCreateChannelDescHalf2(), e,
                                 cudaArrayLayered | cudaArraySurfaceLoadStore);
        turn_surface_ = SurfaceObject(turn_layers_);
        turn_linear_ = TextureObject(turn_layers_, TextureOptions::linear_clamp().with_address(cudaAddressModeBorder));
      } catch (const CudaError& err) {
        (void)cudaGetLastError();  // the failed allocation's error is not the next launch's
        log_info("fdk cuda projector: no memory for the turn-symmetric B's ", e.depth, " layers (", err.what(),
                 "); the general path");
        turn_k_ = 1;
      }
    }
    if (turn_k_ > 1) {
      cd::launch_weight_turn(y, pixel_weights_.data(), turn_inv_c2_.data(), g_.views(), turn_k_, g_.sx, g_.sy,
                             turn_max_.data(), turn_weight_max_, turn_surface_.get(), stream_);
      cd::launch_back_voxel_turn(l, turn_linear_.get(), voxel_views_.data(), g_.views(), turn_k_, turn_sense_,
                                 turn_max_.data(), turn_weight_max_, stream_);
      return;
    }
  }
  const int layers = static_cast<int>(detector_.extent().depth);
  const int* list = device_views(views);
  std::vector<float> params;
  for (int k0 = 0; k0 < count; k0 += layers) {
    const int c = std::min(layers, count - k0);
    // The stream orders this pass after the launches that read the previous chunk.
    cd::launch_weight_layers(y + static_cast<std::size_t>(k0) * g_.image_size(), list + k0, pixel_weights_.data(), c,
                             g_.sx, g_.sy, sampling, detector_surface_.get(), padded_.data(), stream_);
    params.resize(12 * static_cast<std::size_t>(c));
    for (int k = 0; k < c; ++k) {
      const int view = views.empty() ? k0 + k : views[k0 + k];
      std::copy_n(voxel_views_.data() + 12 * static_cast<std::size_t>(view), 12, params.data() + 12 * k);
    }
    cd::launch_back_voxel(l, detector_linear_.get(), 0, params.data(), c, sampling, stream_);
  }
}

int CudaProjector::host_views() const {
  constexpr std::size_t kSlabFloats = std::size_t(8) << 20;  // 32 MiB, as fdk.fdk's chunks of 32 views of 512²
  return static_cast<int>(std::max<std::size_t>(1, kSlabFloats / std::max<std::size_t>(1, g_.image_size())));
}

// NumPy in and out: the volume goes up through the page-locked staging (host threads filling one
// buffer while the other is uploaded); A then runs in chunks of host_views() views, and each
// chunk's line integrals come back on copy_ (through the staging, host threads writing the
// caller's fresh array) while the next chunk is projected. Each ray is computed as in one launch:
// the same numbers as forward_device.
void CudaProjector::forward(std::span<const float> volume, std::span<float> out, std::span<const int> views) {
  if (!rays_.data()) throw Error("fdk cuda projector: forward() before setup()");
  check(volume.size(), out.size(), views);
  stream_.synchronize();  // the device buffers may still be read by queued work
  x_.resize(volume.size());
  y_.resize(out.size());
  const int per = host_views();
  staging_.set_slab(static_cast<std::size_t>(per) * g_.image_size());
  staging_.upload(volume.data(), x_.data(), volume.size(), stream_);
  load_volume(x_.data());
  std::vector<int> list(views.begin(), views.end());
  if (list.empty())
    for (int n = 0; n < g_.views(); ++n) list.push_back(n);
  const bool hardware = options_.interpolation == Interpolation::hardware;
  const cudaTextureObject_t tex = hardware ? linear_.get() : point_.get();
  const std::size_t image = g_.image_size();
  staging_.download(y_.data(), out.data(), out.size(), copy_, [&](std::size_t begin, std::size_t end) {
    const std::size_t k0 = begin / image, k1 = (end + image - 1) / image;  // slabs hold whole views
    const std::span<const int> part(list.data() + k0, k1 - k0);
    cd::launch_forward(Launch::make(*this, part), tex, hardware, y_.data() + k0 * image, stream_);
    chunk_done_.record(stream_);
    copy_.wait(chunk_done_);
  });
  stream_.synchronize();
}

// NumPy in and out for Aᵀ and B: the stack goes up through the staging, the kernels run as
// back_device/back_voxel_device do on the whole stack (the same numbers), the volume comes back
// through the staging into the caller's array.
void CudaProjector::back(std::span<const float> projections, std::span<float> volume, std::span<const int> views) {
  check(volume.size(), projections.size(), views);
  stream_.synchronize();
  x_.resize(volume.size());
  y_.resize(projections.size());
  staging_.set_slab(static_cast<std::size_t>(host_views()) * g_.image_size());
  staging_.upload(projections.data(), y_.data(), projections.size(), stream_);
  back_device(y_.data(), x_.data(), views);
  staging_.download(x_.data(), volume.data(), volume.size(), stream_);
}

void CudaProjector::back_voxel(std::span<const float> projections, std::span<float> volume,
                               std::span<const int> views) {
  check(volume.size(), projections.size(), views);
  stream_.synchronize();
  x_.resize(volume.size());
  y_.resize(projections.size());
  staging_.set_slab(static_cast<std::size_t>(host_views()) * g_.image_size());
  staging_.upload(projections.data(), y_.data(), projections.size(), stream_);
  back_voxel_device(y_.data(), x_.data(), views);
  staging_.download(x_.data(), volume.data(), volume.size(), stream_);
}

void CudaProjector::synchronize() { stream_.synchronize(); }

std::string CudaProjector::describe() const {
  auto devs = list_devices();
  const std::string dev = devs.empty() ? "?" : tomo::cuda::describe(devs[std::min<std::size_t>(
                                                    devs.size() - 1, static_cast<std::size_t>(current_device()))]);
  return str_cat("cuda projector (", dev, ", ray-driven, ", to_string(options_.interpolation),
                 " trilinear samples every ", options_.step_voxels,
                 " voxel, exact transpose in shared-memory boxes, voxel-driven B",
                 turn_k_ > 1 && options_.interpolation == Interpolation::hardware
                     ? str_cat(", ", turn_k_ == 4 ? "four" : "two", " views a texel by ",
                               turn_k_ == 4 ? "quarter" : "half", " turns of the orbit")
                     : std::string(),
                 ")");
}

namespace {

const BackendRegistrar<ConeBeamProjector> kRegisterCuda({"cuda", kPriorityCuda,
                                                         [] { return tomo::cuda::cuda_availability(); },
                                                         [] { return std::make_unique<CudaProjector>(); }});

}  // namespace
}  // namespace tomo::fdk::cuda_impl
