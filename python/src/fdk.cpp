// tomoraster.fdk: the cone-beam back-projector (RabbitCT's update rule) on a user's projection
// stack: NumPy arrays on any backend, CUDA arrays in place on cuda (cuda/fdk/device_arrays.hpp:
// the registered cuda back-projector and filter, the CLI's kernels).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <memory>
#include <span>

#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/fdk/astra_geometry.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/flat_field.hpp"
#include "compute/fdk/forward_projector.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/iterative.hpp"
#include "compute/fdk/iterative_run.hpp"
#include "compute/fdk/orbit.hpp"
#include "compute/fdk/raw_stack.hpp"
#include "compute/fdk/tigre_geometry.hpp"
#include "compute/fdk/projection_filter.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/device.hpp"
#include "python/src/fdk_common.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/fdk/device_arrays.hpp"
#endif

namespace tomo::py {
namespace {

class FdkBackprojector {
 public:
  FdkBackprojector(const std::string& backend, std::vector<int> voxels, std::vector<double> voxel_mm,
                   std::vector<double> origin_mm, const std::string& interpolation) {
    if (voxels.size() != 3 || voxel_mm.size() != 3 || origin_mm.size() != 3)
      throw nb::value_error("voxels, voxel_mm and origin_mm take three values each (x, y, z)");
    for (int a = 0; a < 3; ++a) {
      if (voxels[a] < 1 || !(voxel_mm[a] > 0)) throw nb::value_error("voxels must be >= 1 and voxel_mm > 0");
      grid_.dims[a] = voxels[a];
      grid_.voxel_mm[a] = voxel_mm[a];
      grid_.origin_mm[a] = origin_mm[a];
    }
    auto& reg = BackendRegistry<fdk::ConeBeamBackprojector>::instance();
    backend_ = reg.resolve(backend);
    op_ = reg.create(backend_);
    options_.interpolation = interpolation_of(interpolation);
    op_->configure(options_);
    device_ = runtime_options().cuda_device;
  }
  // projections (N, rows, cols) float32, matrices (N, 3, 4) float64: f += Σ_n bilinear(I_n)/w_n².
  FloatArray backproject(const AnyArray& projections, const AnyArray& matrices) {
    require_host(projections, "projections", backend_);
    const auto [n, rows, cols] = stack_shape(projections);
    const float* pix = float_input(projections, "projections", {n, rows, cols});
    const std::vector<fdk::Mat34> mats = matrices_of(matrices, n);
#ifdef TOMO_HAVE_CUDA
    if (backend_ == "cuda") {  // through page-locked staging into a fresh array, as ConeBeam's NumPy path
      float* vol = nullptr;
      FloatArray out = fresh_float_array(volume_shape(), vol);
      {
        nb::gil_scoped_release release;  // `out` is dropped with the GIL held if this throws
        if (!dev_) dev_ = std::make_unique<fdk::DeviceBackprojector>(*op_, device_);
        dev_->backproject_host(grid_, pix, int(cols), int(rows), int(n), mats, vol);
      }
      return out;
    }
#endif
    VolumeF v;
    {
      nb::gil_scoped_release release;
      const fdk::ProjectionView all{int(cols), int(rows), int(n), mats.data(), pix};
      op_->reset(grid_);
      op_->prepare(all);
      op_->backproject(all);
      v = op_->volume();
    }
    return to_numpy(std::move(v.data), volume_shape());
  }
  // A back-projection accumulated on the backend (on the GPU for cuda) over several NumPy chunks:
  // begin() zeroes it, add() back-projects one chunk into it, finish() returns it, so the volume
  // crosses to the host once, not once per chunk.
  void begin() {
    {
      nb::gil_scoped_release release;
      op_->synchronize();
      op_->reset(grid_);
    }
    held_ = AnyArray();
    begun_ = true;
  }
  void add(const AnyArray& projections, const AnyArray& matrices) {
    if (!begun_) throw nb::value_error("add(): call begin() first");
    require_host(projections, "projections", backend_);
    const auto [n, rows, cols] = stack_shape(projections);
    const float* pix = float_input(projections, "projections", {n, rows, cols});
    const std::vector<fdk::Mat34> mats = matrices_of(matrices, n);
    {
      nb::gil_scoped_release release;
      op_->synchronize();  // the previous chunk has been read: it may go
    }
    held_ = projections;  // this one stays alive until the backend has read it (copies may be queued)
    nb::gil_scoped_release release;
    op_->backproject({int(cols), int(rows), int(n), mats.data(), pix});
  }
  FloatArray finish() {
    if (!begun_) throw nb::value_error("finish(): call begin() first");
    VolumeF v;
    {
      nb::gil_scoped_release release;
      v = op_->volume();
    }
    held_ = AnyArray();
    begun_ = false;
    return to_numpy(std::move(v.data), volume_shape());
  }
  // CUDA projections into the CUDA volume `out` (written in place, or added to with accumulate).
  void backproject_device(const AnyArray& projections, const AnyArray& matrices, const OutArray& out, bool accumulate) {
    require_cuda_backend("projections", backend_, "fdk: CUDA arrays");
    const auto [n, rows, cols] = stack_shape(projections);
    const float* pix = cuda_input(projections, "projections", {n, rows, cols}, device_);
    float* vol = cuda_output(out, "out", volume_shape(), device_);
    const std::vector<fdk::Mat34> mats = matrices_of(matrices, n);
#ifdef TOMO_HAVE_CUDA
    nb::gil_scoped_release release;
    if (!dev_) dev_ = std::make_unique<fdk::DeviceBackprojector>(*op_, device_);
    dev_->backproject(grid_, {pix, int(cols), int(rows), int(n)}, mats, vol, accumulate);
#else
    (void)pix, (void)vol, (void)accumulate;
#endif
  }
  std::string describe() const { return op_->describe(); }
  std::string backend() const { return backend_; }
  int device() const { return device_; }
  std::vector<std::size_t> volume_shape() const {
    const auto& d = grid_.dims;
    return {std::size_t(d[2]), std::size_t(d[1]), std::size_t(d[0])};
  }

 private:
  static fdk::Interpolation interpolation_of(const std::string& name) {
    for (const auto& row : fdk::kInterpolationNames)
      if (row.name == name) return row.value;
    throw nb::value_error("interpolation must be 'hardware' or 'exact'");
  }
  static std::array<std::size_t, 3> stack_shape(const AnyArray& p) {
    if (p.ndim() != 3) throw nb::value_error("projections: shape (N, rows, cols) expected");
    return {p.shape(0), p.shape(1), p.shape(2)};
  }
  static std::vector<fdk::Mat34> matrices_of(const AnyArray& matrices, std::size_t n) {
    const double* m = double_input(matrices, "matrices", {n, 3, 4});
    std::vector<fdk::Mat34> mats(n);
    for (std::size_t i = 0; i < n; ++i)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) mats[i].at(r, c) = m[i * 12 + r * 4 + c];
    return mats;
  }

  Grid3 grid_;
  std::string backend_;
  fdk::BackprojectorOptions options_;
  std::unique_ptr<fdk::ConeBeamBackprojector> op_;
  int device_ = 0;
  AnyArray held_;  // the chunk add() queued last
  bool begun_ = false;
#ifdef TOMO_HAVE_CUDA
  std::unique_ptr<fdk::DeviceBackprojector> dev_;
#endif
};

// FDK's pre-processing of a user's stack as the CLI's raw path does it (compute/fdk/raw_input.cpp,
// pipeline.cpp preprocess_raw): the orbit fitted to the matrices gives the cosine, Parker and ramp
// weights; apply() filters a chunk of line integrals, so Python can call back between chunks.
class FdkPreprocessor {
 public:
  FdkPreprocessor(const AnyArray& matrices, int rows, int cols, const std::string& window, bool parker, bool cosine,
                  const std::string& backend, const std::string& backproject_backend) {
    if (matrices.ndim() != 3) throw nb::value_error("matrices: shape (N, 3, 4) expected");
    const std::size_t n = matrices.shape(0);
    const double* m = double_input(matrices, "matrices", {n, 3, 4});
    std::vector<fdk::Mat34> mats(n);
    for (std::size_t i = 0; i < n; ++i)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) mats[i].at(r, c) = m[i * 12 + r * 4 + c];
    options_.window = fdk::ramp_window_from_name(window, "window");
    options_.parker = parker;
    options_.cosine = cosine;
    orbit_ = fdk::fit_orbit(mats, cols, rows, parker, "matrices");
    name_ = fdk::resolve_filter_backend(backend, backproject_backend);
    op_ = BackendRegistry<fdk::ProjectionFilter>::instance().create(name_);
    device_ = runtime_options().cuda_device;
    nb::gil_scoped_release release;
    op_->setup(orbit_.geometry, options_);
  }
  // CUDA line integrals of projections n0 … n0+count−1 → filtered into the CUDA array `out` (same
  // shape; may be the input), on the GPU with cuFFT (fdk::DeviceFilter), whatever the filter backend.
  void apply_device(int n0, const AnyArray& raw, const OutArray& out) {
    require_cuda_build("fdk: CUDA arrays");
    const auto& g = orbit_.geometry;
    if (raw.ndim() != 3) throw nb::value_error("projections: shape (N, rows, cols) expected");
    const std::size_t count = raw.shape(0);
    if (n0 < 0 || n0 + count > std::size_t(g.projections))
      throw nb::value_error("projections: chunk outside the stack of the matrices");
    const std::vector<std::size_t> shape{count, std::size_t(g.sy), std::size_t(g.sx)};
    const float* in = cuda_input(raw, "projections", shape, device_);
    float* o = cuda_output(out, "out", shape, device_);
#ifdef TOMO_HAVE_CUDA
    nb::gil_scoped_release release;
    if (!dev_) dev_ = std::make_unique<fdk::DeviceFilter>(g, options_, device_);
    dev_->apply(n0, {in, g.sx, g.sy, int(count)}, o);
#else
    (void)in, (void)o;
#endif
  }
  // Line integrals of projections n0 … n0+count−1 ((count, rows, cols) float32) → filtered, new array.
  FloatArray apply(int n0, const AnyArray& raw) {
    const auto& g = orbit_.geometry;
    if (raw.ndim() != 3) throw nb::value_error("projections: shape (N, rows, cols) expected");
    const std::size_t count = raw.shape(0);
    if (n0 < 0 || n0 + count > std::size_t(g.projections))
      throw nb::value_error("projections: chunk outside the stack of the matrices");
    const float* in = float_input(raw, "projections", {count, std::size_t(g.sy), std::size_t(g.sx)});
    std::vector<float> out(in, in + count * std::size_t(g.sx) * std::size_t(g.sy));
    {
      nb::gil_scoped_release release;
      op_->apply(n0, int(count), out.data(), out.data());
    }
    return to_numpy(std::move(out), {count, std::size_t(g.sy), std::size_t(g.sx)});
  }
  // The matrices scaled to w = 1 at the origin (FDK's distance weight is then RabbitCT's 1/w²).
  DoubleArray matrices() const {
    std::vector<double> m;
    for (const auto& a : orbit_.matrices)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) m.push_back(a.at(r, c));
    return to_numpy<double>(std::move(m), {orbit_.matrices.size(), 3, 4});
  }
  std::string describe() const { return op_->describe(); }

 private:
  fdk::FilterOptions options_;
  fdk::FittedOrbit orbit_;
  std::string name_;
  std::unique_ptr<fdk::ProjectionFilter> op_;
  int device_ = 0;
#ifdef TOMO_HAVE_CUDA
  std::unique_ptr<fdk::DeviceFilter> dev_;
#endif
};
}  // namespace

void bind_fdk(nb::module_& m) {
  bind_fdk_cone(m);
  bind_fdk_geometry(m);
  bind_fdk_pipeline(m);
  nb::class_<FdkBackprojector>(m, "FdkBackprojector")
      .def(nb::init<const std::string&, std::vector<int>, std::vector<double>, std::vector<double>, const std::string&>(),
           nb::arg("backend"), nb::arg("voxels"), nb::arg("voxel_mm"), nb::arg("origin_mm"), nb::arg("interpolation"))
      .def("backproject", &FdkBackprojector::backproject, nb::arg("projections"), nb::arg("matrices"))
      .def("begin", &FdkBackprojector::begin)
      .def("add", &FdkBackprojector::add, nb::arg("projections"), nb::arg("matrices"))
      .def("finish", &FdkBackprojector::finish)
      .def("backproject_device", &FdkBackprojector::backproject_device, nb::arg("projections"), nb::arg("matrices"),
           nb::arg("out"), nb::arg("accumulate"))
      .def("describe", &FdkBackprojector::describe)
      .def_prop_ro("backend_name", &FdkBackprojector::backend)
      .def_prop_ro("device", &FdkBackprojector::device)
      .def_prop_ro("volume_shape", &FdkBackprojector::volume_shape);
  nb::class_<FdkPreprocessor>(m, "FdkPreprocessor")
      .def(nb::init<const AnyArray&, int, int, const std::string&, bool, bool, const std::string&, const std::string&>(),
           nb::arg("matrices"), nb::arg("rows"), nb::arg("cols"), nb::arg("window"), nb::arg("parker"),
           nb::arg("cosine"), nb::arg("backend"), nb::arg("backproject_backend"))
      .def("apply", &FdkPreprocessor::apply, nb::arg("n0"), nb::arg("projections"))
      .def("apply_device", &FdkPreprocessor::apply_device, nb::arg("n0"), nb::arg("projections"), nb::arg("out"))
      .def("matrices", &FdkPreprocessor::matrices)
      .def("describe", &FdkPreprocessor::describe);
}

}  // namespace tomo::py
