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

std::vector<fdk::Mat34> mats_of(const AnyArray& matrices) {
  if (matrices.ndim() != 3 || matrices.shape(1) != 3 || matrices.shape(2) != 4)
    throw nb::value_error("matrices: shape (N, 3, 4) expected");
  const std::size_t n = matrices.shape(0);
  const double* m = double_input(matrices, "matrices", {n, 3, 4});
  std::vector<fdk::Mat34> mats(n);
  for (std::size_t i = 0; i < n; ++i)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) mats[i].at(r, c) = m[i * 12 + r * 4 + c];
  return mats;
}

DoubleArray matrices_array(const std::vector<fdk::Mat34>& mats) {
  std::vector<double> v;
  v.reserve(12 * mats.size());
  for (const auto& a : mats)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) v.push_back(a.at(r, c));
  return to_numpy<double>(std::move(v), {mats.size(), 3, 4});
}

Grid3 grid_of(const std::vector<int>& voxels, const std::vector<double>& voxel_mm, const std::vector<double>& origin_mm) {
  if (voxels.size() != 3 || voxel_mm.size() != 3 || origin_mm.size() != 3)
    throw nb::value_error("voxels, voxel_mm and origin_mm take three values each (x, y, z)");
  Grid3 g;
  for (int a = 0; a < 3; ++a) {
    if (voxels[a] < 1 || voxels[a] > 4096 || !(voxel_mm[a] > 0) || !std::isfinite(voxel_mm[a]) ||
        !std::isfinite(origin_mm[a]))
      throw nb::value_error("voxels must be 1..4096, voxel_mm finite and > 0, origin_mm finite");
    g.dims[a] = voxels[a];
    g.voxel_mm[a] = voxel_mm[a];
    g.origin_mm[a] = origin_mm[a];
  }
  return g;
}

// The iterative algorithms' projector pair (A, Aᵀ) of a registered backend on one geometry, and
// the algorithms run on it: the CLI's iterative path (compute/fdk/iterative_run.hpp).
class FdkConeBeam {
 public:
  FdkConeBeam(const std::string& backend, std::vector<int> voxels, std::vector<double> voxel_mm,
              std::vector<double> origin_mm, int rows, int cols, const AnyArray& matrices, double step_voxels) {
    if (rows < 1 || cols < 1 || rows > 65536 || cols > 65536) throw nb::value_error("rows and cols must be 1..65536");
    if (!(step_voxels >= 0.01 && step_voxels <= 4.0)) throw nb::value_error("step_voxels must be in [0.01, 4]");
    geometry_ = {grid_of(voxels, voxel_mm, origin_mm), cols, rows, mats_of(matrices)};
    if (geometry_.matrices.empty()) throw nb::value_error("matrices: at least one view is needed");
    backend_ = fdk::resolve_projector_backend(backend);
    op_ = BackendRegistry<fdk::ConeBeamProjector>::instance().create(backend_);
    options_.step_voxels = step_voxels;
    op_->configure(options_);
    nb::gil_scoped_release release;
    op_->setup(geometry_);
  }
  FloatArray forward(const AnyArray& volume) {
    const float* x = float_input(volume, "volume", in_shape());
    std::vector<float> y(geometry_.views() * geometry_.image_size());
    {
      nb::gil_scoped_release release;
      op_->forward({x, geometry_.grid.count()}, y);
    }
    return to_numpy(std::move(y), out_shape());
  }
  FloatArray back(const AnyArray& projections) {
    const float* y = float_input(projections, "projections", out_shape());
    std::vector<float> x(geometry_.grid.count());
    {
      nb::gil_scoped_release release;
      op_->back({y, geometry_.views() * geometry_.image_size()}, x);
    }
    return to_numpy(std::move(x), in_shape());
  }
  // `callback(iteration, relative_residual)` after each iteration (progress; an exception it
  // raises, Ctrl-C included, stops the loop and reaches the caller).
  FloatArray reconstruct(const AnyArray& projections, const std::string& algorithm, int iterations, int subsets,
                         double tv_lambda, bool nonnegative, nb::object callback) {
    fdk::IterativeOptions o;
    o.algorithm = algorithm_of(algorithm);
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
  std::vector<double> voxel_mm() const { return {geometry_.grid.voxel_mm.begin(), geometry_.grid.voxel_mm.end()}; }
  std::vector<double> origin_mm() const { return {geometry_.grid.origin_mm.begin(), geometry_.grid.origin_mm.end()}; }
  std::string describe() const { return op_->describe(); }
  std::string backend() const { return backend_; }

 private:
  static fdk::Algorithm algorithm_of(const std::string& name) {
    for (const auto& row : fdk::kAlgorithmNames)
      if (row.name == name && row.value != fdk::Algorithm::fdk) return row.value;
    throw nb::value_error(("algorithm must be 'sirt', 'cgls', 'os-sart' or 'tv', not '" + name + "'").c_str());
  }
  fdk::ConeGeometry geometry_;
  fdk::ProjectorOptions options_;
  std::string backend_;
  std::unique_ptr<fdk::ConeBeamProjector> op_;
};

// The circular orbit of [fdk.geometry] (compute/fdk/geometry.hpp) as matrices: angles listed or
// `views` over `arc_deg` from `start_deg`; offsets where the central ray meets the detector.
DoubleArray circular_orbit(int views, double arc_deg, double start_deg, const std::vector<double>& angles_deg, int rows,
                           int cols, double pixel_mm, double source_iso_mm, double source_det_mm, double offset_u_mm,
                           double offset_v_mm, double roll_deg, double pitch_deg, double yaw_deg, bool short_scan) {
  fdk::CArmGeometry g;
  g.sx = cols;
  g.sy = rows;
  g.pixel_mm = pixel_mm;
  g.source_iso_mm = source_iso_mm;
  g.source_det_mm = source_det_mm;
  g.roll_deg = roll_deg, g.pitch_deg = pitch_deg, g.yaw_deg = yaw_deg;
  if (!angles_deg.empty()) {
    g.angles_deg = angles_deg;
    g.projections = static_cast<int>(angles_deg.size());
    g.start_deg = angles_deg.front();
    g.arc_deg = angles_deg.back() - angles_deg.front();
  } else {
    g.projections = views;
    g.start_deg = start_deg;
    g.arc_deg = short_scan ? g.short_scan_arc_deg() : arc_deg;
  }
  if (!std::isfinite(offset_u_mm) || std::abs(offset_u_mm) > 0.5 * cols * pixel_mm ||
      !std::isfinite(offset_v_mm) || std::abs(offset_v_mm) > 0.5 * rows * pixel_mm)
    throw nb::value_error("offset_u_mm and offset_v_mm must lie within half the detector");
  g.principal_u = 0.5 * (cols - 1) + offset_u_mm / pixel_mm;
  g.principal_v = 0.5 * (rows - 1) + offset_v_mm / pixel_mm;
  g.validate("circular orbit", false);
  return matrices_array(g.matrices());
}

DoubleArray tigre_matrices(const std::vector<double>& dsd, const std::vector<double>& dso,
                           const std::vector<int>& n_detector, const std::vector<double>& d_detector,
                           const std::vector<std::vector<double>>& off_detector,
                           const std::vector<std::vector<double>>& rot_detector,
                           const std::vector<std::vector<double>>& off_origin, const std::vector<double>& cor,
                           const std::vector<std::vector<double>>& angles) {
  fdk::TigreGeometry t;
  if (n_detector.size() != 2 || d_detector.size() != 2) throw nb::value_error("nDetector and dDetector take (v, u)");
  t.DSD = dsd;
  t.DSO = dso;
  t.nDetector = {n_detector[0], n_detector[1]};
  t.dDetector = {d_detector[0], d_detector[1]};
  const auto rows_of = [](const std::vector<std::vector<double>>& v, std::size_t k, const char* name) {
    std::vector<std::vector<double>> out = v;
    for (const auto& r : out)
      if (r.size() != k) throw nb::value_error((std::string(name) + ": rows of " + std::to_string(k) + " values").c_str());
    return out;
  };
  t.offDetector.clear(), t.rotDetector.clear(), t.offOrigin.clear();
  for (const auto& r : rows_of(off_detector, 2, "offDetector")) t.offDetector.push_back({r[0], r[1]});
  for (const auto& r : rows_of(rot_detector, 3, "rotDetector")) t.rotDetector.push_back({r[0], r[1], r[2]});
  for (const auto& r : rows_of(off_origin, 3, "offOrigin")) t.offOrigin.push_back({r[0], r[1], r[2]});
  t.COR = cor;
  for (const auto& r : rows_of(angles, 3, "angles")) t.angles.push_back({r[0], r[1], r[2]});
  return matrices_array(t.matrices("TIGRE geometry"));
}

fdk::RawStack stack_of(const AnyArray& a, const std::string& name) {
  if (a.ndim() != 2 && a.ndim() != 3) throw nb::value_error((name + ": shape (rows, cols) or (N, rows, cols) expected").c_str());
  fdk::RawStack s;
  s.count = a.ndim() == 3 ? int(a.shape(0)) : 1;
  s.rows = int(a.shape(a.ndim() - 2));
  s.cols = int(a.shape(a.ndim() - 1));
  const std::vector<std::size_t> shape = shape_of(a);
  const float* p = float_input(a, name, shape);
  s.pixels.assign(p, p + std::size_t(s.count) * s.rows * s.cols);
  return s;
}

}  // namespace

void bind_fdk(nb::module_& m) {
  nb::class_<FdkConeBeam>(m, "FdkConeBeam")
      .def(nb::init<const std::string&, std::vector<int>, std::vector<double>, std::vector<double>, int, int,
                    const AnyArray&, double>(),
           nb::arg("backend"), nb::arg("voxels"), nb::arg("voxel_mm"), nb::arg("origin_mm"), nb::arg("rows"),
           nb::arg("cols"), nb::arg("matrices"), nb::arg("step_voxels"))
      .def("forward", &FdkConeBeam::forward, nb::arg("volume"))
      .def("back", &FdkConeBeam::back, nb::arg("projections"))
      .def("reconstruct", &FdkConeBeam::reconstruct, nb::arg("projections"), nb::arg("algorithm"),
           nb::arg("iterations"), nb::arg("subsets"), nb::arg("tv_lambda"), nb::arg("nonnegative"),
           nb::arg("callback").none())
      .def("describe", &FdkConeBeam::describe)
      .def_prop_ro("backend_name", &FdkConeBeam::backend)
      .def_prop_ro("in_shape", &FdkConeBeam::in_shape)
      .def_prop_ro("out_shape", &FdkConeBeam::out_shape)
      .def_prop_ro("voxel_mm", &FdkConeBeam::voxel_mm)
      .def_prop_ro("origin_mm", &FdkConeBeam::origin_mm);
  m.def("fdk_circular_orbit", &circular_orbit, nb::arg("views"), nb::arg("arc_deg"), nb::arg("start_deg"),
        nb::arg("angles_deg"), nb::arg("rows"), nb::arg("cols"), nb::arg("pixel_mm"), nb::arg("source_iso_mm"),
        nb::arg("source_det_mm"), nb::arg("offset_u_mm"), nb::arg("offset_v_mm"), nb::arg("roll_deg"),
        nb::arg("pitch_deg"), nb::arg("yaw_deg"), nb::arg("short_scan"));
  m.def(
      "fdk_astra_matrices",
      [](const AnyArray& vectors, int rows, int cols) {
        if (vectors.ndim() != 2 || vectors.shape(1) != 12) throw nb::value_error("vectors: shape (N, 12) expected");
        const double* v = double_input(vectors, "vectors", {vectors.shape(0), 12});
        return matrices_array(fdk::astra_cone_vec_matrices({v, vectors.shape(0) * 12}, rows, cols, "cone_vec"));
      },
      nb::arg("vectors"), nb::arg("rows"), nb::arg("cols"));
  m.def("fdk_tigre_matrices", &tigre_matrices, nb::arg("DSD"), nb::arg("DSO"), nb::arg("nDetector"),
        nb::arg("dDetector"), nb::arg("offDetector"), nb::arg("rotDetector"), nb::arg("offOrigin"), nb::arg("COR"),
        nb::arg("angles"));
  m.def(
      "fdk_read_projections",
      [](const std::string& path, const std::string& layout) {
        fdk::StackLayout l = fdk::StackLayout::projections;
        bool known = false;
        for (const auto& row : fdk::kStackLayoutNames)
          if (row.name == layout) l = row.value, known = true;
        if (!known) throw nb::value_error("layout must be 'projections', 'tigre' or 'astra'");
        fdk::RawStack s;
        {
          nb::gil_scoped_release release;
          s = fdk::arrange_stack(fdk::read_projection_stack(path), l, path);
        }
        return to_numpy(std::move(s.pixels), {std::size_t(s.count), std::size_t(s.rows), std::size_t(s.cols)});
      },
      nb::arg("path"), nb::arg("layout"));
  m.def(
      "fdk_flat_dark",
      [](const AnyArray& projections, const AnyArray& flat, nb::object dark) {
        if (projections.ndim() != 3) throw nb::value_error("projections: shape (N, rows, cols) expected");
        fdk::RawStack s = stack_of(projections, "projections");
        const std::vector<float> f = fdk::mean_image(stack_of(flat, "flat"));
        std::vector<float> d;
        if (!dark.is_none()) d = fdk::mean_image(stack_of(nb::cast<AnyArray>(dark), "dark"));
        fdk::flat_dark_to_line_integrals(s, f, d, "projections");
        return to_numpy(std::move(s.pixels), {std::size_t(s.count), std::size_t(s.rows), std::size_t(s.cols)});
      },
      nb::arg("projections"), nb::arg("flat"), nb::arg("dark").none());
  nb::class_<FdkBackprojector>(m, "FdkBackprojector")
      .def(nb::init<const std::string&, std::vector<int>, std::vector<double>, std::vector<double>, const std::string&>(),
           nb::arg("backend"), nb::arg("voxels"), nb::arg("voxel_mm"), nb::arg("origin_mm"), nb::arg("interpolation"))
      .def("backproject", &FdkBackprojector::backproject, nb::arg("projections"), nb::arg("matrices"))
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
