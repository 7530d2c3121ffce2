// tomoraster.fdk's iterative projector pair: FdkConeBeam, A and Aᵀ of a registered backend on
// one geometry (NumPy arrays, or CUDA arrays in place on cuda) and the algorithms run on it.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/forward_projector.hpp"
#include "compute/fdk/iterative.hpp"
#include "compute/fdk/iterative_run.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/device.hpp"
#include "python/src/fdk_common.hpp"
#ifdef TOMO_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/fdk/cuda_projector.hpp"
#endif

namespace tomo::py {
namespace {

// The iterative algorithms' projector pair (A, Aᵀ) of a registered backend on one geometry, and
// the algorithms run on it: the CLI's iterative path (compute/fdk/iterative_run.hpp).
class FdkConeBeam {
 public:
  FdkConeBeam(const std::string& backend, std::vector<int> voxels, std::vector<double> voxel_mm,
              std::vector<double> origin_mm, int rows, int cols, const AnyArray& matrices, double step_voxels,
              const std::string& interpolation) {
    if (rows < 1 || cols < 1 || rows > 65536 || cols > 65536) throw nb::value_error("rows and cols must be 1..65536");
    if (!(step_voxels >= 0.01 && step_voxels <= 4.0)) throw nb::value_error("step_voxels must be in [0.01, 4]");
    geometry_ = {grid_of(voxels, voxel_mm, origin_mm), cols, rows, mats_of(matrices)};
    if (geometry_.matrices.empty()) throw nb::value_error("matrices: at least one view is needed");
    options_.interpolation = interpolation_of(interpolation);
    backend_ = fdk::resolve_projector_backend(backend);
    // cpu samples with fp32 weights only: "hardware" there would silently be the exact pair.
    if (options_.interpolation == fdk::Interpolation::hardware && backend_ == "cpu")
      throw nb::value_error("interpolation='hardware': the cpu backend has no texture unit and samples exactly; "
                            "use interpolation='exact' or a GPU backend (cuda, gl-compute, gl)");
    op_ = BackendRegistry<fdk::ConeBeamProjector>::instance().create(backend_);
    options_.step_voxels = step_voxels;
    op_->configure(options_);
    device_ = runtime_options().cuda_device;
    nb::gil_scoped_release release;
    op_->setup(geometry_);
  }
  // CUDA arrays in place (cuda backend): out = A x ("forward"), Aᵀ y ("back") or B y
  // ("back_voxel"), on the projector's device buffers' kernels, no host copy. Waits for the
  // device's queued work first (the caller's arrays, written on any stream) and returns when out
  // is written.
  void apply_device(const std::string& which, const AnyArray& in, const OutArray& out) {
    const bool fwd = which == "forward";
    if (!fwd && which != "back" && which != "back_voxel")
      throw nb::value_error("which must be 'forward', 'back' or 'back_voxel'");
    const char* in_name = fwd ? "volume" : "projections";
    require_cuda_backend(in_name, backend_, "fdk.ConeBeam: CUDA arrays");
    const float* a = cuda_input(in, in_name, fwd ? in_shape() : out_shape(), device_);
    float* b = cuda_output(out, "out", fwd ? out_shape() : in_shape(), device_);
#ifdef TOMO_HAVE_CUDA
    auto* c = dynamic_cast<fdk::cuda_impl::CudaProjector*>(op_.get());
    if (!c) throw nb::type_error("fdk.ConeBeam: CUDA arrays need the cuda backend");
    nb::gil_scoped_release release;
    cuda::select_device(device_);
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());
    if (fwd)
      c->forward_device(a, b);
    else if (which == "back")
      c->back_device(a, b);
    else
      c->back_voxel_device(a, b);
    TOMO_CUDA_CHECK(cudaStreamSynchronize(c->stream()));
#else
    (void)a, (void)b;
#endif
  }
  // NumPy in, a new NumPy array out, written by the backend in place (on cuda through
  // page-locked staging by several host threads: cuda_projector.hpp).
  FloatArray forward(const AnyArray& volume) {
    const float* x = float_input(volume, "volume", in_shape());
    float* y = nullptr;
    FloatArray out = fresh_float_array(out_shape(), y);
    {
      nb::gil_scoped_release release;  // `out` is dropped with the GIL held if this throws
      op_->forward({x, geometry_.grid.count()}, {y, stack_floats()});
    }
    return out;
  }
  FloatArray back(const AnyArray& projections) {
    const float* y = float_input(projections, "projections", out_shape());
    float* x = nullptr;
    FloatArray out = fresh_float_array(in_shape(), x);
    {
      nb::gil_scoped_release release;  // `out` is dropped with the GIL held if this throws
      op_->back({y, stack_floats()}, {x, geometry_.grid.count()});
    }
    return out;
  }
  // B: the voxel-driven approximation of Aᵀ that SIRT, OS-SART and TV use (ASTRA's BP3D).
  FloatArray back_voxel(const AnyArray& projections) {
    const float* y = float_input(projections, "projections", out_shape());
    float* x = nullptr;
    FloatArray out = fresh_float_array(in_shape(), x);
    {
      nb::gil_scoped_release release;  // `out` is dropped with the GIL held if this throws
      op_->back_voxel({y, stack_floats()}, {x, geometry_.grid.count()});
    }
    return out;
  }
  // `callback(iteration, relative_residual)` after each iteration (progress; an exception it
  // raises, Ctrl-C included, stops the loop and reaches the caller).
  FloatArray reconstruct(const AnyArray& projections, const std::string& algorithm, int iterations, int subsets,
                         double tv_lambda, bool nonnegative, const std::string& cgls_backprojector,
                         nb::object callback) {
    fdk::IterativeOptions o;
    o.algorithm = algorithm_of(algorithm);
    bool known = false;
    for (const auto& row : fdk::kCglsBackNames)
      if (row.name == cgls_backprojector) o.cgls_back = row.value, known = true;
    if (!known) throw nb::value_error("backprojector must be 'exact' or 'voxel'");
    if (iterations < 1 || iterations > 100000) throw nb::value_error("iterations must be 1..100000");
    if (subsets < 1 || subsets > 100000) throw nb::value_error("subsets must be 1..100000");
    if (!(tv_lambda >= 0 && tv_lambda <= 1e3)) throw nb::value_error("tv_lambda must be in [0, 1000]");
    o.iterations = iterations;
    o.subsets = subsets;
    o.tv_lambda = tv_lambda;
    o.nonnegative = nonnegative;
    const float* b = float_input(projections, "projections", out_shape());
    const std::span<const float> line_integrals(b, geometry_.views() * geometry_.image_size());
    VolumeF v;
    try {
      nb::gil_scoped_release release;
      v = fdk::reconstruct_iterative(*op_, geometry_, line_integrals, o, [&](int it, double residual) {
        if (!callback.is_none()) call_python([&] { return callback(it, residual); }, false);
      });
    } catch (const StopLoop&) {
      throw nb::value_error("stopped by the callback before the last iteration");
    } catch (const PythonRaised&) {
      rethrow_python();
    }
    return to_numpy(std::move(v.data), in_shape());
  }
  std::vector<std::size_t> in_shape() const {
    const auto& d = geometry_.grid.dims;
    return {std::size_t(d[2]), std::size_t(d[1]), std::size_t(d[0])};
  }
  std::vector<std::size_t> out_shape() const {
    return {std::size_t(geometry_.views()), std::size_t(geometry_.sy), std::size_t(geometry_.sx)};
  }
  std::size_t stack_floats() const { return geometry_.views() * geometry_.image_size(); }
  std::vector<double> voxel_mm() const { return {geometry_.grid.voxel_mm.begin(), geometry_.grid.voxel_mm.end()}; }
  std::vector<double> origin_mm() const { return {geometry_.grid.origin_mm.begin(), geometry_.grid.origin_mm.end()}; }
  std::string describe() const { return op_->describe(); }
  std::string backend() const { return backend_; }
  std::string interpolation() const { return fdk::to_string(options_.interpolation); }

 private:
  static fdk::Interpolation interpolation_of(const std::string& name) {
    for (const auto& row : fdk::kInterpolationNames)
      if (row.name == name) return row.value;
    throw nb::value_error(("interpolation must be 'exact' or 'hardware', not '" + name + "'").c_str());
  }
  static fdk::Algorithm algorithm_of(const std::string& name) {
    for (const auto& row : fdk::kAlgorithmNames)
      if (row.name == name && row.value != fdk::Algorithm::fdk) return row.value;
    throw nb::value_error(("algorithm must be 'sirt', 'cgls', 'os-sart' or 'tv', not '" + name + "'").c_str());
  }
  fdk::ConeGeometry geometry_;
  fdk::ProjectorOptions options_;
  std::string backend_;
  std::unique_ptr<fdk::ConeBeamProjector> op_;
  int device_ = 0;
};

}  // namespace

void bind_fdk_cone(nb::module_& m) {
  nb::class_<FdkConeBeam>(m, "FdkConeBeam")
      .def(nb::init<const std::string&, std::vector<int>, std::vector<double>, std::vector<double>, int, int,
                    const AnyArray&, double, const std::string&>(),
           nb::arg("backend"), nb::arg("voxels"), nb::arg("voxel_mm"), nb::arg("origin_mm"), nb::arg("rows"),
           nb::arg("cols"), nb::arg("matrices"), nb::arg("step_voxels"), nb::arg("interpolation") = "exact")
      .def("forward", &FdkConeBeam::forward, nb::arg("volume"))
      .def("back", &FdkConeBeam::back, nb::arg("projections"))
      .def("back_voxel", &FdkConeBeam::back_voxel, nb::arg("projections"))
      .def("apply_device", &FdkConeBeam::apply_device, nb::arg("which"), nb::arg("input"), nb::arg("out"))
      .def("reconstruct", &FdkConeBeam::reconstruct, nb::arg("projections"), nb::arg("algorithm"),
           nb::arg("iterations"), nb::arg("subsets"), nb::arg("tv_lambda"), nb::arg("nonnegative"),
           nb::arg("cgls_backprojector"), nb::arg("callback").none())
      .def("describe", &FdkConeBeam::describe)
      .def_prop_ro("backend_name", &FdkConeBeam::backend)
      .def_prop_ro("interpolation", &FdkConeBeam::interpolation)
      .def_prop_ro("in_shape", &FdkConeBeam::in_shape)
      .def_prop_ro("out_shape", &FdkConeBeam::out_shape)
      .def_prop_ro("voxel_mm", &FdkConeBeam::voxel_mm)
      .def_prop_ro("origin_mm", &FdkConeBeam::origin_mm);
}

}  // namespace tomo::py
