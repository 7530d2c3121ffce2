// The `cuda` backend of the safir operator (float32): all events uploaded once and resident on
// the GPU; a window (frame, or code sample 4's halving) is labelled and sorted by key on the GPU
// (CUB radix sort; a window that is part of the list, an OSEM subset, is kept made on the
// device: window_cache.hpp); the ML-EM pass is tiled (tiled_pass.hpp: forward gathers and back atomics in
// shared-memory tiles of the image, default) or fused (one thread per event, forward = gather,
// back = global atomicAdd, for software GL's sake only in gl-compute; here for tests and the
// benchmark); image, sensitivity and accumulator stay on the GPU for all iterations and frames
// ([Locans2017] copied the image back every iteration). DeviceOperator: the same calls on the
// caller's device memory (Python's GPU arrays).
#include <cuda_runtime_api.h>
#include <vector_functions.h>

#include <algorithm>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/safir/analysis.hpp"
#include "compute/safir/projector.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/safir/device_arrays_kernels.hpp"
#include "cuda/safir/device_operator.hpp"
#include "cuda/safir/kernels.hpp"
#include "cuda/safir/sort_buffers.hpp"
#include "cuda/safir/tiled_pass.hpp"
#include "cuda/safir/window_cache.hpp"

namespace tomo::safir {

namespace {

using namespace tomo::safir::cuda_impl;

class CudaProjector final : public ListModeOperator, public DeviceOperator {
 public:
  std::string describe() const override {
    if (!tiled_) return str_cat("cuda (float32, CUB sort by label, fused pass, global atomics): ", device_);
    // The tiles are planned per event window (set_window); before the first, say so.
    const std::string tiles =
        plan_.smem_floats > 0 ? str_cat("tiles up to ", plan_.smem_floats, " voxels") : std::string("tiles planned per window");
    return str_cat("cuda (float32, CUB sort by label, tiled pass: ", config_.blocks_per_sm, " blocks/SM, ", tiles, "): ", device_);
  }
  void synchronize() override { stream_->synchronize(); }

  void configure(const Scanner& sc, const ImageBox& box, const ProjectorOptions& o) override {
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
  std::uint32_t crystal_count() const override {
    if (!configured_) throw Error("safir cuda: no scanner yet: configure() the operator first");
    return scanner_.crystal_count();
  }

  void set_events(std::span<const Event> events) override {
    for (std::size_t i = 0; i < events.size(); ++i)
      if (events[i].a >= scanner_.crystal_count() || events[i].b >= scanner_.crystal_count())
        throw InputError(str_cat("safir: event ", i, " names a crystal beyond the scanner's ", scanner_.crystal_count()));
    stream_->synchronize();
    resize_events(events.size());
    if (total_) events_.upload(reinterpret_cast<const uint2*>(events.data()), total_);
    set_window(0, total_);
  }

  void set_events_device(const std::uint32_t* ids, std::size_t n) override {
    if (n && !ids) throw Error("safir cuda: null events");
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's writes of the events, on any stream
    resize_events(n);
    if (n) TOMO_CUDA_CHECK(cudaMemcpyAsync(events_.data(), ids, n * sizeof(uint2), cudaMemcpyDeviceToDevice, *stream_));
    // label_and_sort reads crystals[id] unchecked: the lowest bad row first, into a scratch word.
    const unsigned long long none = n;
    sort_.counts.upload_async(&none, 1, *stream_);
    launch_find_bad_events(reinterpret_cast<const std::uint32_t*>(events_.data()), n, scanner_.crystal_count(),
                           sort_.counts.data(), *stream_);
    unsigned long long bad = none;
    sort_.counts.download_async(&bad, 1, *stream_);
    stream_->synchronize();
    if (bad < n) {
      resize_events(0);
      throw InputError(str_cat("events: row ", bad, " names a crystal id not below the scanner's ",
                               scanner_.crystal_count(), " crystals"));
    }
    set_window(0, total_);
  }
  // The pairs made on the device: a host list would be generated on one thread and uploaded,
  // most of the sensitivity's time (3.4·10⁷ pairs for the paper's scanner).
  void set_pair_events(std::span<const std::uint32_t> first) override {
    const std::uint32_t n = crystal_count();
    for (const std::uint32_t a : first)
      if (a >= n) throw InputError(str_cat("safir: pair crystal ", a, " beyond the scanner's ", n));
    stream_->synchronize();
    resize_events(first.size() * (n - 1));
    if (total_) {
      pair_firsts_.resize(first.size());
      pair_firsts_.upload_async(first.data(), first.size(), *stream_);
      launch_pair_events(pair_firsts_.data(), first.size(), n,
                         reinterpret_cast<std::uint32_t*>(events_.data()), *stream_);
    }
    set_window(0, total_);
  }
  std::size_t event_count() const override { return total_; }
  std::vector<Event> events_to_host() const override {
    std::vector<Event> out(total_);
    if (total_) events_.download_async(reinterpret_cast<uint2*>(out.data()), total_, *stream_);
    stream_->synchronize();
    return out;
  }
  void use_window(std::size_t first, std::size_t count) override {
    if (first != first_ || count != count_) set_window(first, count);
  }

  void set_window(std::size_t first, std::size_t count) override {
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

  std::array<std::size_t, 4> label_counts() const override { return host_counts_; }

  void set_image(std::span<const double> f) override { upload(f_, f, "image"); }
  std::vector<double> image() const override { return download(f_); }
  void set_sensitivity(std::span<const double> s) override { upload(s_, s, "sensitivity"); }
  void set_randoms_per_lor(double n) override { randoms_ = n; }

  std::vector<double> forward() override {
    project_forward();
    std::vector<float> y(count_);
    values_.download_async(y.data(), count_, *stream_);
    stream_->synchronize();
    const auto& order = host_order();
    std::vector<double> out(count_, 0.0);
    for (std::size_t i = host_counts_[0]; i < count_; ++i) out[order[i]] = y[i];
    return out;
  }

  std::vector<double> back(std::span<const double> v) override {
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

  void forward_device(const float* f, float* y) override {
    copy_image(f_.data(), f);
    project_forward();
    launch_scatter_to_events(values_.data(), window_order_, host_counts_[0], count_, y, *stream_);
    stream_->synchronize();
  }

  void back_device(const float* v, float* image) override {
    acc_.fill_zero(*stream_);
    acc_clear_ = false;
    launch_gather_from_events(v, window_order_, count_, values_.data(), *stream_);
    values_zero_ = 0;
    project_back(args());
    copy_image(image, acc_.data());
  }

  void iterate_device(float* image) override {
    copy_image(f_.data(), image);
    iterate();
    copy_image(image, f_.data());
  }

  void iterate() override {
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

  SphereSums sphere_sums(double r_in, double r_out) override {
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

 private:
  void use(const MadeWindow& w) {
    host_counts_ = w.counts;
    plan_ = w.plan;
    window_sorted_ = w.sorted.data();
    window_order_ = w.order.data();
    window_records_ = w.records.data();
  }

  // Events (8 B), keys in/out (2 B), order in/out (8 B), sorted events (8 B), values (4 B), records (16 B).
  void resize_events(std::size_t n) {
    const double per_event = tiled_ ? 46.0 : 30.0;
    const double need = per_event * double(n) - per_event * double(total_);
    if (need > 0) cuda::require_device_memory(need, "safir cuda: the event list (safir.events)");
    made_.clear();
    total_ = n;
    values_zero_ = most_ = 0;  // values_ is made anew
    events_.resize(total_);
    sort_.resize(total_);
    values_.resize(total_);
    records_.resize(tiled_ ? total_ : 0);
  }

  // values_ (sorted order) = A f + randoms over the window.
  void project_forward() {
    values_zero_ = 0;
    if (tiled_) {
      zero_values();
      launch_forward_tiled(tiled_args(), *stream_);
      launch_add(values_.data(), host_counts_[0], count_, static_cast<float>(randoms_), *stream_);
    } else {
      launch_forward(args(), *stream_);
    }
  }

  // acc_ (zeroed by the caller) += Aᵀ values_ (a.values null: ones).
  void project_back(const ProjectArgs& a) {
    if (tiled_) {
      TiledArgs t = tiled_args();
      t.mode = a.values ? BackValues::values : BackValues::ones;
      launch_back_tiled(t, *stream_);
    } else {
      launch_back(a, *stream_);
    }
  }

  // box.count() floats device to device, on the backend's stream, waited for.
  void copy_image(float* to, const float* from) {
    TOMO_CUDA_CHECK(cudaMemcpyAsync(to, from, box_.count() * sizeof(float), cudaMemcpyDeviceToDevice, *stream_));
    stream_->synchronize();
  }

  ProjectArgs args() {
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

  TiledArgs tiled_args() {
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

  void zero_values() {
    if (count_) TOMO_CUDA_CHECK(cudaMemsetAsync(values_.data(), 0, count_ * sizeof(float), *stream_));
  }

  const std::vector<std::uint32_t>& host_order() {
    if (!order_valid_) {
      order_.resize(count_);
      TOMO_CUDA_CHECK(cudaMemcpyAsync(order_.data(), window_order_, count_ * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, *stream_));
      stream_->synchronize();
      order_valid_ = true;
    }
    return order_;
  }

  void upload(cuda::DeviceBuffer<float>& b, std::span<const double> v, const char* what) {
    if (v.size() != box_.count())
      throw Error(str_cat("safir cuda: ", what, " of ", v.size(), " voxels, box has ", box_.count()));
    std::vector<float> f(v.begin(), v.end());
    stream_->synchronize();
    b.upload_async(f.data(), f.size(), *stream_);
    stream_->synchronize();
  }
  std::vector<double> download(const cuda::DeviceBuffer<float>& b) const {
    std::vector<float> f(b.size());
    b.download_async(f.data(), f.size(), *stream_);
    stream_->synchronize();
    return {f.begin(), f.end()};
  }

  bool configured_ = false;  // configure() has completed
  Scanner scanner_;
  ImageBox box_;
  BoxParams<float> params_{};
  BoxParams<double> params_d_{};
  bool tiled_ = true;
  TileConfig config_;
  TileDevice device_shape_;
  TilePlan plan_;
  std::string device_ = "no device";
  std::unique_ptr<cuda::Stream> stream_;
  cuda::DeviceBuffer<float4> crystals_, records_;
  cuda::DeviceBuffer<double> crystals_d_;
  cuda::DeviceBuffer<uint2> events_;
  cuda::DeviceBuffer<std::uint32_t> pair_firsts_;
  SortBuffers sort_;
  WindowCache made_;
  // The current window's sorted events, order and records: the scratch's or a kept window's.
  const uint2* window_sorted_ = nullptr;
  const std::uint32_t* window_order_ = nullptr;
  const float4* window_records_ = nullptr;
  cuda::DeviceBuffer<float> values_, f_, acc_, s_;
  bool acc_clear_ = false;  // acc_ is all zeros (left so by iterate())
  std::size_t values_zero_ = 0, most_ = 0;  // values_[0, values_zero_) is zero; the largest iterated window
  cuda::DeviceBuffer<int4> offsets_;
  cuda::DeviceBuffer<float4> sums_;
  std::size_t total_ = 0, first_ = 0, count_ = 0;
  std::array<std::size_t, 4> host_counts_{};
  std::vector<std::uint32_t> order_;
  bool order_valid_ = false;
  double randoms_ = 0;
};

const BackendRegistrar<ListModeOperator> kRegisterCuda({"cuda", kPriorityCuda, [] { return cuda::cuda_availability(); },
                                                        [] { return std::make_unique<CudaProjector>(); }});

}  // namespace

}  // namespace tomo::safir
