// The `cuda` backend of the safir operator (registered in cuda_projector.cpp): the class shared
// by its projection side (cuda_projector.cpp: windows, passes, ML-EM, analysis) and its event
// side (cuda_projector_events.cpp: the event list on the device, checked, copied or made as pairs).
#pragma once
#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compute/safir/projector.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/safir/device_operator.hpp"
#include "cuda/safir/kernels.hpp"
#include "cuda/safir/sort_buffers.hpp"
#include "cuda/safir/tiled_pass.hpp"
#include "cuda/safir/window_cache.hpp"

namespace tomo::safir::cuda_impl {

class CudaProjector final : public ListModeOperator, public DeviceOperator {
 public:
  std::string describe() const override;
  void synchronize() override { stream_->synchronize(); }

  void configure(const Scanner& sc, const ImageBox& box, const ProjectorOptions& o) override;
  std::uint32_t crystal_count() const override;
  void set_events(std::span<const Event> events) override;
  void set_events_device(const std::uint32_t* ids, std::size_t n) override;
  // The pairs made on the device: a host list would be generated on one thread and uploaded,
  // most of the sensitivity's time (3.4·10⁷ pairs for the paper's scanner).
  void set_pair_events(std::span<const std::uint32_t> first) override;
  std::size_t event_count() const override { return total_; }
  std::vector<Event> events_to_host() const override;
  void use_window(std::size_t first, std::size_t count) override {
    if (first != first_ || count != count_) set_window(first, count);
  }
  void set_window(std::size_t first, std::size_t count) override;
  std::array<std::size_t, 4> label_counts() const override { return host_counts_; }

  void set_image(std::span<const double> f) override { upload(f_, f, "image"); }
  std::vector<double> image() const override { return download(f_); }
  void set_sensitivity(std::span<const double> s) override { upload(s_, s, "sensitivity"); }
  void set_randoms_per_lor(double n) override { randoms_ = n; }

  std::vector<double> forward() override;
  std::vector<double> back(std::span<const double> v) override;
  void iterate() override;
  SphereSums sphere_sums(double r_in, double r_out) override;

  // DeviceOperator: the same passes on the caller's device memory.
  void forward_device(const float* f, float* y) override;
  void back_device(const float* v, float* image) override;
  void iterate_device(float* image) override;

 private:
  // The window's counts, plan and buffers from a kept window.
  void use(const MadeWindow& w);
  // Room for n events (kept windows dropped); per event: events (8 B), keys in/out (2 B), order in/out (8 B), sorted events (8 B), values (4 B), records (16 B).
  void resize_events(std::size_t n);
  // values_ (sorted order) = A f + randoms over the window.
  void project_forward();
  // acc_ (zeroed by the caller) += Aᵀ values_ (a.values null: ones).
  void project_back(const ProjectArgs& a);
  // box.count() floats device to device, on the backend's stream, waited for.
  void copy_image(float* to, const float* from);
  ProjectArgs args();
  TiledArgs tiled_args();
  void zero_values();
  const std::vector<std::uint32_t>& host_order();
  void upload(cuda::DeviceBuffer<float>& b, std::span<const double> v, const char* what);
  std::vector<double> download(const cuda::DeviceBuffer<float>& b) const;

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

}  // namespace tomo::safir::cuda_impl
