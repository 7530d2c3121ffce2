// The `cuda` backend of the safir operator (float32): all events uploaded once and resident on
// the GPU; a window (frame, or code sample 4's halving) is labelled and sorted by key on the GPU
// (CUB radix sort; a window that is part of the list, an OSEM subset, is kept made on the
// device: window_cache.hpp); the ML-EM pass is tiled (tiled_pass.hpp: forward gathers and back atomics in
// shared-memory tiles of the image, default) or fused (one thread per event, forward = gather,
// back = global atomicAdd, for software GL's sake only in gl-compute; here for tests and the
// benchmark); image, sensitivity and accumulator stay on the GPU for all iterations and frames
// ([Locans2017] copied the image back every iteration). DeviceOperator: the same calls on the
// caller's device memory (Python's GPU arrays). The event list's side (upload, checks, pairs) is
// cuda_projector_events.cpp.
#include "cuda/safir/cuda_projector.hpp"

#include <vector_functions.h>

#include <algorithm>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/safir/analysis.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/safir/device_arrays_kernels.hpp"

namespace tomo::safir::cuda_impl {

std::string CudaProjector::describe() const {
  if (!tiled_) return str_cat("cuda (float32, CUB sort by label, fused pass, global atomics): ", device_);
  // The tiles are planned per event window (set_window); before the first, say so.
  const std::string tiles =
      plan_.smem_floats > 0 ? str_cat("tiles up to ", plan_.smem_floats, " voxels") : std::string("tiles planned per window");
  return str_cat("cuda (float32, CUB sort by label, tiled pass: ", config_.blocks_per_sm, " blocks/SM, ", tiles, "): ", device_);
}

void CudaProjector::configure(const Scanner& sc, const ImageBox& box, const ProjectorOptions& o) {
  configured_ = false;
  tiled_ = resolve_pass(o.pass, /*software_renderer=*/false) == Pass::tiled;
  config_.blocks_per_sm = std::max(1, o.tile_blocks_per_sm);
  cuda::select_device(runtime_options().cuda_device);
  const int dev = cuda::current_device();
  for (const auto& d : cuda::list_devices())
    if (d.index == dev) device_ = cuda::describe(d);
  scanner_ = sc;
  box_ = box;
  params_ = box.params<float>();
  stream_ = std::make_unique<cuda::Stream>();
  crystals_ = crystal_buffer(sc);
  crystals_d_ = crystal_buffer_double(sc);
  params_d_ = box.params<double>();
  device_shape_ = tile_device();
  plan_ = TilePlan{};
  cuda::require_device_memory(4.0 * 3 * double(box.count()), "safir cuda: 3 float images (safir.image)");
  f_.resize(box.count());
  acc_.resize(box.count());
  acc_clear_ = false;
  values_zero_ = most_ = 0;
  s_.resize(box.count());
  s_.fill_zero(*stream_);
  events_.clear();
  made_.clear();
  total_ = first_ = count_ = 0;
  host_counts_ = {};
  order_valid_ = false;
  randoms_ = 0;
  configured_ = true;
}

void CudaProjector::set_window(std::size_t first, std::size_t count) {
  if (first > total_ || count > total_ - first)
    throw Error(str_cat("safir cuda: window [", first, ", +", count, ") beyond ", total_, " events"));
  first_ = first;
  count_ = count;
  order_valid_ = false;
  if (const MadeWindow* w = made_.find(first, count)) {
    use(*w);
    return;
  }
  host_counts_ = sort_.sort(events_.data() + first, count, crystals_.data(), params_, *stream_);
  if (tiled_) {
    launch_records(sort_.sorted.data(), host_counts_[0], count_, crystals_d_.data(), params_d_, records_.data(), *stream_);
    plan_ = plan_for_device(params_, host_counts_, device_shape_, config_);
  }
  window_sorted_ = sort_.sorted.data();
  window_order_ = sort_.order_out.data();
  window_records_ = records_.data();
  // A window that is part of the list (an OSEM subset) is kept made for its next visits.
  if (const MadeWindow* w = made_.keep(first, count, total_, host_counts_, plan_, window_sorted_, window_order_,
                                       tiled_ ? window_records_ : nullptr, *stream_))
    use(*w);
}

std::vector<double> CudaProjector::forward() {
  project_forward();
  std::vector<float> y(count_);
  values_.download_async(y.data(), count_, *stream_);
  stream_->synchronize();
  const auto& order = host_order();
  std::vector<double> out(count_, 0.0);
  for (std::size_t i = host_counts_[0]; i < count_; ++i) out[order[i]] = y[i];
  return out;
}

std::vector<double> CudaProjector::back(std::span<const double> v) {
  if (!v.empty() && v.size() != count_)
    throw Error(str_cat("safir cuda: back-projection of ", v.size(), " values over a window of ", count_));
  acc_.fill_zero(*stream_);
  acc_clear_ = false;
  ProjectArgs a = args();
  if (v.empty()) {
    a.values = nullptr;  // ones: the sensitivity's pairs need no upload
  } else {
    const auto& order = host_order();
    std::vector<float> sorted(count_);
    for (std::size_t i = 0; i < count_; ++i) sorted[i] = static_cast<float>(v[order[i]]);
    values_.upload_async(sorted.data(), count_, *stream_);
    values_zero_ = 0;
  }
  project_back(a);
  return download(acc_);
}

void CudaProjector::forward_device(const float* f, float* y) {
  copy_image(f_.data(), f);
  project_forward();
  launch_scatter_to_events(values_.data(), window_order_, host_counts_[0], count_, y, *stream_);
  stream_->synchronize();
}

void CudaProjector::back_device(const float* v, float* image) {
  acc_.fill_zero(*stream_);
  acc_clear_ = false;
  launch_gather_from_events(v, window_order_, count_, values_.data(), *stream_);
  values_zero_ = 0;
  project_back(args());
  copy_image(image, acc_.data());
}

void CudaProjector::iterate_device(float* image) {
  copy_image(f_.data(), image);
  iterate();
  copy_image(image, f_.data());
}

void CudaProjector::iterate() {
  if (!acc_clear_) acc_.fill_zero(*stream_);
  acc_clear_ = false;
  if (tiled_) {
    // ȳ by the tiled forward pass into values_ (left zero by the last update where it could),
    // then a_lj / ȳ_l by the tiled back pass.
    if (values_zero_ < count_) zero_values();
    TiledArgs t = tiled_args();
    launch_forward_tiled(t, *stream_);
    t.mode = BackValues::ratio;
    launch_back_tiled(t, *stream_);
  } else {
    launch_mlem(args(), *stream_);
  }
  // The update also clears ȳ of the largest window iterated so far (an OSEM subset's
  // neighbours differ by one event): the next subset's forward pass needs no memset.
  most_ = std::max(most_, count_);
  const std::size_t clear = tiled_ ? most_ : 0;
  launch_update_clear(f_.data(), acc_.data(), s_.data(), box_.count(), values_.data(), clear, *stream_);
  acc_clear_ = true;  // the next iterate() needs no clear
  values_zero_ = clear;
}

SphereSums CudaProjector::sphere_sums(double r_in, double r_out) {
  const auto offs = sphere_offsets(box_.voxel_mm, r_in, r_out);
  std::vector<int4> packed;
  for (const auto& o : offs) packed.push_back(make_int4(o.di, o.dj, o.dk, o.shell));
  if (offsets_.size() != packed.size()) offsets_.resize(packed.size());
  offsets_.upload_async(packed.data(), packed.size(), *stream_);
  sums_.resize(box_.count());
  launch_sphere_sums(f_.data(), offsets_.data(), static_cast<int>(packed.size()), box_.n[0], box_.n[1], box_.n[2],
                     sums_.data(), *stream_);
  std::vector<float4> r(box_.count());
  sums_.download_async(r.data(), r.size(), *stream_);
  stream_->synchronize();
  SphereSums out;
  for (std::vector<double>* v : {&out.inner, &out.shell, &out.n_inner, &out.n_shell}) v->resize(box_.count());
  for (std::size_t j = 0; j < r.size(); ++j) {
    out.inner[j] = r[j].x;
    out.shell[j] = r[j].y;
    out.n_inner[j] = r[j].z;
    out.n_shell[j] = r[j].w;
  }
  return out;
}

void CudaProjector::use(const MadeWindow& w) {
  host_counts_ = w.counts;
  plan_ = w.plan;
  window_sorted_ = w.sorted.data();
  window_order_ = w.order.data();
  window_records_ = w.records.data();
}

void CudaProjector::project_forward() {
  values_zero_ = 0;
  if (tiled_) {
    zero_values();
    launch_forward_tiled(tiled_args(), *stream_);
    launch_add(values_.data(), host_counts_[0], count_, static_cast<float>(randoms_), *stream_);
  } else {
    launch_forward(args(), *stream_);
  }
}

void CudaProjector::project_back(const ProjectArgs& a) {
  if (tiled_) {
    TiledArgs t = tiled_args();
    t.mode = a.values ? BackValues::values : BackValues::ones;
    launch_back_tiled(t, *stream_);
  } else {
    launch_back(a, *stream_);
  }
}

void CudaProjector::copy_image(float* to, const float* from) {
  TOMO_CUDA_CHECK(cudaMemcpyAsync(to, from, box_.count() * sizeof(float), cudaMemcpyDeviceToDevice, *stream_));
  stream_->synchronize();
}

ProjectArgs CudaProjector::args() {
  ProjectArgs a;
  a.sorted = window_sorted_;
  a.first = host_counts_[0];  // label 0 sorts first and is skipped
  a.n = count_;
  a.crystals = crystals_.data();
  a.box = params_;
  a.f = f_.data();
  a.values = values_.data();
  a.acc = acc_.data();
  a.randoms = static_cast<float>(randoms_);
  return a;
}

TiledArgs CudaProjector::tiled_args() {
  TiledArgs t;
  t.plan = plan_;
  t.records = window_records_;
  t.box = params_;
  t.f = f_.data();
  t.ybar = values_.data();
  t.values = values_.data();
  t.randoms = static_cast<float>(randoms_);
  t.acc = acc_.data();
  t.pairs = config_.pair_access;
  return t;
}

void CudaProjector::zero_values() {
  if (count_) TOMO_CUDA_CHECK(cudaMemsetAsync(values_.data(), 0, count_ * sizeof(float), *stream_));
}

const std::vector<std::uint32_t>& CudaProjector::host_order() {
  if (!order_valid_) {
    order_.resize(count_);
    TOMO_CUDA_CHECK(cudaMemcpyAsync(order_.data(), window_order_, count_ * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, *stream_));
    stream_->synchronize();
    order_valid_ = true;
  }
  return order_;
}

void CudaProjector::upload(cuda::DeviceBuffer<float>& b, std::span<const double> v, const char* what) {
  if (v.size() != box_.count())
    throw Error(str_cat("safir cuda: ", what, " of ", v.size(), " voxels, box has ", box_.count()));
  std::vector<float> f(v.begin(), v.end());
  stream_->synchronize();
  b.upload_async(f.data(), f.size(), *stream_);
  stream_->synchronize();
}

std::vector<double> CudaProjector::download(const cuda::DeviceBuffer<float>& b) const {
  std::vector<float> f(b.size());
  b.download_async(f.data(), f.size(), *stream_);
  stream_->synchronize();
  return {f.begin(), f.end()};
}

namespace {

const BackendRegistrar<ListModeOperator> kRegisterCuda({"cuda", kPriorityCuda, [] { return cuda::cuda_availability(); },
                                                        [] { return std::make_unique<CudaProjector>(); }});

}  // namespace

}  // namespace tomo::safir::cuda_impl
