// tomoraster._core.LineProjector: Joseph's LOR-driven line projector (compute/pet/line_projector.hpp)
// on arbitrary end points, cpu or cuda; NumPy arrays through the host calls (double), CUDA
// arrays (CuPy, PyTorch; float32) in place through the cuda backend's device calls; non-TOF, or
// TOF list mode with one bin per line (the second constructor).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

#include "compute/core/runtime_options.hpp"
#include "compute/pet/line_projector.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/device.hpp"

namespace tomo::py {
namespace {

class LineProjectorPy {
 public:
  // endpoints: C-contiguous float64 (N, 6); dims, voxel, origin in (x, y, z).
  LineProjectorPy(const AnyArray& endpoints, const std::vector<int>& dims, const std::vector<double>& voxel,
                  const std::vector<double>& origin, const std::string& backend) {
    make(endpoints, dims, voxel, origin, backend, nullptr);
  }
  // TOF list mode: tof_bins int32 (N,), tof_sigma float64 (1,) or (N,), tof_center_offset float64
  // (1,) or (N,).
  LineProjectorPy(const AnyArray& endpoints, const std::vector<int>& dims, const std::vector<double>& voxel,
                  const std::vector<double>& origin, const std::string& backend, const AnyArray& tof_bins,
                  int num_tof_bins, double tof_bin_width, const AnyArray& tof_sigma, const AnyArray& tof_center_offset,
                  double num_sigmas) {
    pet::LineTof tof;
    tof.bin_index = std::span<const int>(host_input<std::int32_t>(tof_bins, "tof_bin_index", {kAnySize}), tof_bins.shape(0));
    tof.num_bins = num_tof_bins;
    tof.bin_width_mm = tof_bin_width;
    tof.sigma_mm = std::span<const double>(double_input(tof_sigma, "tof_sigma", {kAnySize}), tof_sigma.shape(0));
    tof.center_offset_mm =
        std::span<const double>(double_input(tof_center_offset, "tof_center_offset", {kAnySize}), tof_center_offset.shape(0));
    tof.num_sigmas = num_sigmas;
    make(endpoints, dims, voxel, origin, backend, &tof);
  }
  std::string describe() const { return op_->describe(); }
  std::string backend() const { return backend_; }
  std::size_t lines() const { return op_->line_count(); }
  std::vector<std::size_t> image_shape() const {
    return {std::size_t(grid_.dims[2]), std::size_t(grid_.dims[1]), std::size_t(grid_.dims[0])};
  }

  DoubleArray forward(const AnyArray& x) {
    const double* img = double_input(x, "x", image_shape());
    std::vector<double> y(lines());
    {
      nb::gil_scoped_release release;
      op_->forward(std::span<const double>(img, grid_.count()), y);
    }
    return to_numpy<double>(std::move(y), {lines()});
  }
  DoubleArray back(const AnyArray& v) {
    const double* val = double_input(v, "y", {lines()});
    std::vector<double> img(grid_.count());
    {
      nb::gil_scoped_release release;
      op_->back(std::span<const double>(val, lines()), img);
    }
    return to_numpy<double>(std::move(img), image_shape());
  }
  void forward_device(const AnyArray& x, const OutArray& out) {
    const float* img = cuda_backend_input(x, "x", image_shape(), backend_, device_, "LineProjector: CUDA arrays");
    float* y = cuda_output(out, "out", {lines()}, device_);
    nb::gil_scoped_release release;
    op_->forward_device(img, y);
  }
  void back_device(const AnyArray& v, const OutArray& out) {
    const float* val = cuda_backend_input(v, "y", {lines()}, backend_, device_, "LineProjector: CUDA arrays");
    float* img = cuda_output(out, "out", image_shape(), device_);
    nb::gil_scoped_release release;
    op_->back_device(val, img);
  }

 private:
  void make(const AnyArray& endpoints, const std::vector<int>& dims, const std::vector<double>& voxel,
            const std::vector<double>& origin, const std::string& backend, const pet::LineTof* tof) {
    if (dims.size() != 3 || voxel.size() != 3 || origin.size() != 3)
      throw nb::value_error("LineProjector: shape, voxel_size and origin need 3 values each");
    const double* e = double_input(endpoints, "endpoints", {kAnySize, 6});
    for (int k = 0; k < 3; ++k) grid_.dims[k] = dims[k], grid_.voxel_mm[k] = voxel[k], grid_.origin_mm[k] = origin[k];
    const std::size_t n = endpoints.shape(0);
    device_ = runtime_options().cuda_device;
    nb::gil_scoped_release release;
    op_ = pet::make_line_projector(backend, grid_, std::span<const double>(e, 6 * n), tof);
    backend_ = backend == "auto" ? (op_->describe().rfind("cuda", 0) == 0 ? "cuda" : "cpu") : backend;
  }

  pet::LineGrid grid_;
  std::unique_ptr<pet::LineProjector> op_;
  std::string backend_;
  int device_ = 0;
};

}  // namespace

void bind_pet_lines(nb::module_& m) {
  nb::class_<LineProjectorPy>(m, "LineProjector")
      .def(nb::init<const AnyArray&, const std::vector<int>&, const std::vector<double>&, const std::vector<double>&,
                    const std::string&>(),
           nb::arg("endpoints"), nb::arg("dims"), nb::arg("voxel"), nb::arg("origin"), nb::arg("backend"))
      .def(nb::init<const AnyArray&, const std::vector<int>&, const std::vector<double>&, const std::vector<double>&,
                    const std::string&, const AnyArray&, int, double, const AnyArray&, const AnyArray&, double>(),
           nb::arg("endpoints"), nb::arg("dims"), nb::arg("voxel"), nb::arg("origin"), nb::arg("backend"),
           nb::arg("tof_bins"), nb::arg("num_tof_bins"), nb::arg("tof_bin_width"), nb::arg("tof_sigma"),
           nb::arg("tof_center_offset"), nb::arg("num_sigmas"))
      .def("describe", &LineProjectorPy::describe)
      .def("backend", &LineProjectorPy::backend)
      .def("lines", &LineProjectorPy::lines)
      .def("image_shape", &LineProjectorPy::image_shape)
      .def("forward", &LineProjectorPy::forward, nb::arg("x"))
      .def("back", &LineProjectorPy::back, nb::arg("y"))
      .def("forward_device", &LineProjectorPy::forward_device, nb::arg("x"), nb::arg("out"))
      .def("back_device", &LineProjectorPy::back_device, nb::arg("y"), nb::arg("out"));
}

}  // namespace tomo::py
