// The `cuda` backend of the line projector (compute/pet/line_projector.hpp): the walks made once
// at configure and kept on the device in line order; float32 images and values; host calls upload
// and download, device calls run on the caller's arrays. The forward gathers from the image; the
// back adds one float4 atomic per plane sample into the quad layout of each dominant axis that the
// lines have (joseph_kernels.hpp) and sums it into the image. In TOF mode each line's TOF walk
// (window, distance, renormalised weight; made in double on the host) rides beside its walk and
// the kernels weigh each plane by the bin-integrated Gaussian. docs/perf/pet.md has the variants
// measured against these (quads for the forward, lines sorted by direction or along a Morton
// curve) and why they went.
#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/pet/line_projector.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/pet/joseph_kernels.hpp"

namespace tomo::pet {

namespace {

using cuda_impl::DeviceWalk;

class CudaLineProjector final : public LineProjector {
 public:
  std::string describe() const override {
    return "cuda (float32): " + device_name_ + (tof_mode_ ? ", TOF list mode" : "");
  }

  void configure(const LineGrid& g, std::span<const double> e, const LineTof* tof) override {
    check_line_input(g, e);
    if (tof) check_line_tof(g, e.size() / 6, *tof);
    device_ = runtime_options().cuda_device;
    cuda::select_device(device_);
    for (const auto& d : cuda::list_devices())
      if (d.index == device_) device_name_ = cuda::describe(d);
    grid_ = g;
    lines_ = e.size() / 6;
    const std::vector<DeviceWalk> walks = cuda_impl::device_walks(g, e);
    bool used[3] = {false, false, false};
    for (const DeviceWalk& w : walks)
      if (w.last >= w.first) used[w.axis] = true;
    double quad_bytes = 0;
    for (int d = 0; d < 3; ++d)
      if (used[d]) quad_bytes += 16.0 * double(cuda_impl::quad_count(g, d));
    const double tof_bytes = tof ? double(sizeof(cuda_impl::DeviceTof)) : 0.0;
    cuda::require_device_memory(double(lines_) * (sizeof(DeviceWalk) + tof_bytes + 2 * 4) + 8.0 * g.count() + quad_bytes,
                                "line projector cuda: walks, quad planes, one image and one set of line values");
    stream_ = std::make_unique<cuda::Stream>();
    walks_ = cuda::DeviceBuffer<DeviceWalk>(std::span<const DeviceWalk>(walks));
    tof_ = cuda::DeviceBuffer<cuda_impl::DeviceTof>();
    half_width_ = 0;
    tof_mode_ = tof != nullptr;
    if (tof) {
      const std::vector<cuda_impl::DeviceTof> t = cuda_impl::device_tof_walks(g, e, *tof);
      tof_ = cuda::DeviceBuffer<cuda_impl::DeviceTof>(std::span<const cuda_impl::DeviceTof>(t));
      half_width_ = float(0.5 * tof->bin_width_mm);
    }
    for (int d = 0; d < 3; ++d) {
      quads_[d] = cuda::DeviceBuffer<float4>();
      if (used[d]) quads_[d].resize(cuda_impl::quad_count(g, d));
      quad_ptr_[d] = used[d] ? quads_[d].data() : nullptr;
    }
  }
  std::size_t line_count() const override { return lines_; }

  void forward(std::span<const double> image, std::span<double> lines) override {
    check_sizes(image.size(), lines.size(), "forward");
    ensure_host_buffers();
    const std::vector<float> x(image.begin(), image.end());
    image_.upload(std::span<const float>(x));
    run_forward(image_.data(), values_.data());
    std::vector<float> y(lines_);
    values_.download(std::span<float>(y));
    std::copy(y.begin(), y.end(), lines.begin());
  }

  void back(std::span<const double> lines, std::span<double> image) override {
    check_sizes(image.size(), lines.size(), "back");
    ensure_host_buffers();
    const std::vector<float> v(lines.begin(), lines.end());
    values_.upload(std::span<const float>(v));
    run_back(values_.data(), image_.data());
    std::vector<float> x(grid_.count());
    image_.download(std::span<float>(x));
    std::copy(x.begin(), x.end(), image.begin());
  }

  void forward_device(const float* image, float* lines) override {
    if (!image || (!lines && lines_)) throw Error("line projector cuda: null image or line values");
    wait_for_caller();
    run_forward(image, lines);
  }
  void back_device(const float* lines, float* image) override {
    if (!image || (!lines && lines_)) throw Error("line projector cuda: null image or line values");
    wait_for_caller();
    run_back(lines, image);
  }

 private:
  cuda_impl::JosephArgs args() const {
    return {walks_.data(), lines_, grid_.dims[0], grid_.dims[1], grid_.dims[2], tof_mode_ ? tof_.data() : nullptr,
            half_width_};
  }
  void run_forward(const float* image, float* lines) {
    cuda::select_device(device_);
    cuda_impl::launch_joseph_forward(args(), image, lines, stream_->get());
    stream_->synchronize();
  }
  void run_back(const float* lines, float* image) {
    cuda::select_device(device_);
    for (int d = 0; d < 3; ++d)
      if (quad_ptr_[d]) quads_[d].fill_zero(stream_->get());
    cuda_impl::launch_joseph_back_quads(args(), lines, quad_ptr_, stream_->get());
    cuda_impl::launch_quads_to_image(args(), quad_ptr_, image, stream_->get());
    stream_->synchronize();
  }
  void wait_for_caller() const {
    cuda::select_device(device_);
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's writes, on whatever stream
  }
  void check_sizes(std::size_t voxels, std::size_t lines, const char* what) const {
    if (voxels != grid_.count() || lines != lines_)
      throw Error(str_cat("line projector cuda: ", what, " with ", voxels, " voxels and ", lines,
                          " lines, configured for ", grid_.count(), " and ", lines_));
  }
  void ensure_host_buffers() {
    if (image_.size() != grid_.count()) image_.resize(grid_.count());
    if (values_.size() != lines_) values_.resize(lines_);
  }

  int device_ = 0;
  std::string device_name_;
  LineGrid grid_;
  std::size_t lines_ = 0;
  std::unique_ptr<cuda::Stream> stream_;
  cuda::DeviceBuffer<DeviceWalk> walks_;
  cuda::DeviceBuffer<cuda_impl::DeviceTof> tof_;  // empty: non-TOF
  float half_width_ = 0;                          // TOF bin width / 2 (mm)
  bool tof_mode_ = false;
  cuda::DeviceBuffer<float4> quads_[3];
  float4* quad_ptr_[3] = {nullptr, nullptr, nullptr};
  cuda::DeviceBuffer<float> image_, values_;  // host calls' staging
};

const BackendRegistrar<LineProjector> kRegisterCuda({"cuda", kPriorityCuda, [] { return cuda::cuda_availability(); },
                                                     [] { return std::make_unique<CudaLineProjector>(); }});

}  // namespace

}  // namespace tomo::pet
