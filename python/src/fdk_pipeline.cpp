// tomoraster.fdk.fdk on the cuda backend: the whole FDK of a stack on the GPU (cuda/fdk/device_fdk.hpp),
// chunk by chunk from NumPy or CUDA arrays, the volume returned once. fdk.py keeps one per
// geometry, so its cuFFT plans, ring slots and staging buffers serve every call of that geometry.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <span>

#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/filter.hpp"
#include "compute/fdk/orbit.hpp"
#include "python/src/arrays.hpp"
#include "python/src/device.hpp"
#include "python/src/fdk_common.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/fdk/device_fdk.hpp"
#endif

namespace tomo::py {
namespace {

class FdkPipeline {
 public:
  FdkPipeline(const AnyArray& matrices, int rows, int cols, const std::string& window, bool parker, bool cosine,
              const std::vector<int>& voxels, const std::vector<double>& voxel_mm,
              const std::vector<double>& origin_mm, const std::string& interpolation, int chunk, double ring_mb) {
    require_cuda_build("fdk.fdk on the cuda backend");
    if (chunk < 1 || chunk > 64) throw nb::value_error("chunk must be 1..64 on the cuda backend");
    if (!(ring_mb >= 0 && ring_mb <= 1e7)) throw nb::value_error("ring_mb must be in [0, 1e7]");
    grid_ = grid_of(voxels, voxel_mm, origin_mm);
    const std::vector<fdk::Mat34> mats = mats_of(matrices);
    fdk::FilterOptions options;
    options.window = fdk::ramp_window_from_name(window, "window");
    options.parker = parker;
    options.cosine = cosine;
    orbit_ = fdk::fit_orbit(mats, cols, rows, parker, "matrices");
    fdk::BackprojectorOptions bp;
    bool known = false;
    for (const auto& row : fdk::kInterpolationNames)
      if (row.name == interpolation) bp.interpolation = row.value, known = true;
    if (!known) throw nb::value_error("interpolation must be 'hardware' or 'exact'");
    device_ = runtime_options().cuda_device;
#ifdef TOMO_HAVE_CUDA
    op_ = BackendRegistry<fdk::ConeBeamBackprojector>::instance().create("cuda");
    op_->configure(bp);
    nb::gil_scoped_release release;
    run_ = std::make_unique<fdk::DeviceFdk>(orbit_.geometry, options, *op_, grid_, chunk, device_, ring_mb);
#endif
  }

  void begin() {
#ifdef TOMO_HAVE_CUDA
    nb::gil_scoped_release release;
    run_->begin();
#endif
  }
  // Projections n0 … n0 + len(chunk) − 1: a NumPy or a CUDA float32 array (count, rows, cols).
  void add(int n0, const AnyArray& chunk) {
    const auto& g = orbit_.geometry;
    if (chunk.ndim() != 3) throw nb::value_error("projections: shape (N, rows, cols) expected");
    const std::size_t count = chunk.shape(0);
    if (n0 < 0 || n0 + count > std::size_t(g.projections))
      throw nb::value_error("projections: chunk outside the stack of the matrices");
    const std::vector<std::size_t> shape{count, std::size_t(g.sy), std::size_t(g.sx)};
    const bool on_device = is_cuda(chunk);
    const float* pix = on_device ? cuda_input(chunk, "projections", shape, device_)
                                 : float_input(chunk, "projections", shape);
#ifdef TOMO_HAVE_CUDA
    nb::gil_scoped_release release;
    run_->add(n0, int(count), pix, on_device,
              std::span<const fdk::Mat34>(orbit_.matrices).subspan(std::size_t(n0), count));
#else
    (void)pix;
#endif
  }
  // The volume (z, y, x) as a new NumPy array.
  FloatArray finish_host() {
    float* vol = nullptr;
    FloatArray out = fresh_float_array(volume_shape(), vol);
#ifdef TOMO_HAVE_CUDA
    {
      nb::gil_scoped_release release;  // `out` is dropped with the GIL held if this throws
      run_->finish(vol, false);
    }
#else
    (void)vol;
#endif
    return out;
  }
  // The volume into the CUDA array `out` (z, y, x).
  void finish_device(const OutArray& out) {
    float* vol = cuda_output(out, "out", volume_shape(), device_);
#ifdef TOMO_HAVE_CUDA
    nb::gil_scoped_release release;
    run_->finish(vol, true);
#else
    (void)vol;
#endif
  }
  // Where the last run's time went (ms; see DeviceFdkTimes).
  nb::dict times() const {
    nb::dict d;
#ifdef TOMO_HAVE_CUDA
    const fdk::DeviceFdkTimes t = run_->times();
    d["stage_ms"] = t.stage_ms;
    d["wait_ms"] = t.wait_ms;
    d["store_ms"] = t.store_ms;
    d["total_ms"] = t.total_ms;
    d["upload_ms"] = t.upload_ms;
    d["filter_ms"] = t.filter_ms;
    d["chunks"] = t.chunks;
#endif
    return d;
  }
  DoubleArray matrices() const { return matrices_array(orbit_.matrices); }
  std::vector<std::size_t> volume_shape() const {
    return {std::size_t(grid_.dims[2]), std::size_t(grid_.dims[1]), std::size_t(grid_.dims[0])};
  }
  int chunk() const {
#ifdef TOMO_HAVE_CUDA
    return run_->chunk();
#else
    return 0;
#endif
  }
  std::string describe() const {
#ifdef TOMO_HAVE_CUDA
    return run_->describe() + " on " + op_->describe();
#else
    return "";
#endif
  }

 private:
  Grid3 grid_;
  fdk::FittedOrbit orbit_;
  int device_ = 0;
  std::unique_ptr<fdk::ConeBeamBackprojector> op_;
#ifdef TOMO_HAVE_CUDA
  std::unique_ptr<fdk::DeviceFdk> run_;  // declared after op_: destroyed before it
#endif
};

}  // namespace

void bind_fdk_pipeline(nb::module_& m) {
  // The CUDA device operators made now run on (set_cuda_device): part of fdk.py's cache key.
  m.def("fdk_cuda_device", [] { return runtime_options().cuda_device; });
  nb::class_<FdkPipeline>(m, "FdkPipeline")
      .def(nb::init<const AnyArray&, int, int, const std::string&, bool, bool, const std::vector<int>&,
                    const std::vector<double>&, const std::vector<double>&, const std::string&, int, double>(),
           nb::arg("matrices"), nb::arg("rows"), nb::arg("cols"), nb::arg("window"), nb::arg("parker"),
           nb::arg("cosine"), nb::arg("voxels"), nb::arg("voxel_mm"), nb::arg("origin_mm"), nb::arg("interpolation"),
           nb::arg("chunk"), nb::arg("ring_mb") = 1024.0)
      .def("begin", &FdkPipeline::begin)
      .def("add", &FdkPipeline::add, nb::arg("n0"), nb::arg("projections"))
      .def("finish_host", &FdkPipeline::finish_host)
      .def("finish_device", &FdkPipeline::finish_device, nb::arg("out"))
      .def("times", &FdkPipeline::times)
      .def("matrices", &FdkPipeline::matrices)
      .def("describe", &FdkPipeline::describe)
      .def_prop_ro("chunk", &FdkPipeline::chunk)
      .def_prop_ro("volume_shape", &FdkPipeline::volume_shape);
}

}  // namespace tomo::py
