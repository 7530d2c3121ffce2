// Reading [fdk] (see config.hpp).
#include "compute/fdk/config.hpp"

#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/image_volume.hpp"
#include "compute/pet/scene_options.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/simulate.hpp"

namespace tomo::fdk {
namespace {

FilterOptions filter_from_scene(const Scene& s) {
  FilterOptions f;
  f.window = ramp_window_from_name(s.get<std::string>("fdk.filter.window", "ram-lak"), s.where("fdk.filter.window"));
  f.parker = s.get<bool>("fdk.filter.parker", true);
  f.cosine = s.get<bool>("fdk.filter.cosine", true);
  return f;
}

CrosscheckSetup crosscheck_from_scene(const Scene& s) {
  CrosscheckSetup c;
  c.L = s.get_int_in_range("fdk.crosscheck.L", 32, 2, 512);
  CArmGeometry small;  // RabbitCT's C-arm with 8× fewer views and an 8× coarser detector
  small.projections = 62;
  small.sx = 156;
  small.sy = 120;
  small.pixel_mm = 2.56;
  c.geometry = CArmGeometry::from_scene(s, "fdk.crosscheck.", small);
  c.tolerance = s.get_in_range("fdk.crosscheck.tolerance", 1e-4, 0.0, 1.0);
  c.hardware_tolerance = s.get_in_range("fdk.crosscheck.hardware_tolerance", 5e-3, 0.0, 1.0);
  return c;
}

// The iterative algorithms' keys; InputError for one that needs line integrals on a RabbitCT file
// (its projections are already filtered).
void iterative_from_scene(const Scene& s, FdkConfig& d) {
  d.algorithm = s.get_enum("fdk.algorithm", Algorithm::fdk, kAlgorithmNames);
  IterativeOptions& o = d.iterative;
  o.algorithm = d.algorithm;
  o.iterations = s.get_int_in_range("fdk.iterations", 50, 1, 100000);
  o.subsets = s.get_int_in_range("fdk.subsets", 10, 1, 100000);
  o.tv_lambda = s.get_in_range("fdk.tv.lambda", 2e-5, 0.0, 1e3);
  o.nonnegative = s.get<bool>("fdk.nonnegative", true);
  o.cgls_back = s.get_enum("fdk.cgls.backprojector", CglsBack::exact, kCglsBackNames);
  d.projector.step_voxels = s.get_in_range("fdk.projector.step_voxels", 0.5, 0.01, 4.0);
  d.projector.interpolation = s.get_enum("fdk.projector.interpolation", Interpolation::exact, kInterpolationNames);
  o.save_iterations = pet::read_save_iterations(s, "fdk", o.iterations);
  if (const auto path = s.get_input_path("fdk.initial_image"); !path.empty()) {
    // NIfTI or Interfile on the volume's grid; the readers refuse non-finite voxels.
    o.initial = read_image_on_grid(path, d.grid, GridFit::exact, "fdk.initial_image '" + path.string() + "'").data;
  }
  if ((!o.save_iterations.empty() || !o.initial.empty()) && d.algorithm == Algorithm::fdk)
    throw InputError(s.where(o.initial.empty() ? "fdk.save_iterations" : "fdk.initial_image") +
                     " needs an iterative fdk.algorithm (sirt, cgls, os-sart, tv); fdk does not iterate");
  if (d.algorithm != Algorithm::fdk && d.source == Source::rabbitct)
    throw InputError(s.where("fdk.algorithm") + ": " + to_string(d.algorithm) +
                     " needs line integrals (simulated or fdk.raw.projections); a RabbitCT file holds filtered "
                     "projections, only fdk reconstructs them");
}

// TIGRE's image (nVoxel, sVoxel) is the volume: fdk reconstructs a cube centred on the origin
// (offOrigin moves the views), so the sides must agree, and with fdk.L / fdk.volume_mm.
void tigre_grid(const Scene& s, const TigreGeometry& t, bool size_given, FdkConfig& d) {
  const auto& n = t.nVoxel;
  const auto& v = t.sVoxel;
  if (n[0] != n[1] || n[1] != n[2] || v[0] != v[1] || v[1] != v[2])
    throw InputError(str_cat(s.where("fdk.tigre.nVoxel"), ": fdk reconstructs a cube; nVoxel (", n[0], ", ", n[1], ", ",
                             n[2], ") and sVoxel (", v[0], ", ", v[1], ", ", v[2],
                             ") must have equal sides (the Python operators take any grid)"));
  if (size_given && (n[0] != d.L || v[0] != d.volume_mm))
    throw InputError(str_cat(s.where("fdk.tigre.nVoxel"), " (", n[0], " voxels over ", v[0], " mm) and fdk.L = ", d.L,
                             ", fdk.volume_mm = ", d.volume_mm, " disagree; give one"));
  if (n[0] < 2) throw InputError(s.where("fdk.tigre.nVoxel") + " must be at least 2");
  d.L = n[0];
  d.volume_mm = v[0];
  d.grid = rabbit_grid(d.L, d.volume_mm);
}

}  // namespace

Phantom phantom_from_scene(const Scene& s, double& mu) {
  mu = s.get_in_range("fdk.mu", 0.02, 1e-9, 1e3);
  if (s.array_size("fdk.phantom") > 0) return Phantom::from_scene(s, "fdk.phantom");
  const double scale = s.get_in_range("fdk.shepp_logan_scale_mm", 100.0, 1e-3, 1e4);
  return shepp_logan_3d(scale, mu);
}

FdkConfig FdkConfig::from_scene(const Scene& s) {
  FdkConfig d;
  const bool size_given = s.has("fdk.L") || s.has("fdk.volume_mm");  // before `get` records defaults
  d.L = s.get_int_in_range("fdk.L", 128, 2, 4096);
  d.volume_mm = s.get_in_range("fdk.volume_mm", 256.0, 1e-3, 1e5);
  d.grid = rabbit_grid(d.L, d.volume_mm);
  d.batch = s.get_int_in_range("fdk.batch", 16, 1, 100000);
  d.options.interpolation = s.get_enum("fdk.interpolation", Interpolation::hardware, kInterpolationNames);
  d.options.device_memory_mb = s.get_in_range("fdk.device_memory_mb", 0.0, 0.0, 1e9);
  d.options.projections_per_launch = s.get_int_in_range("fdk.projections_per_launch", 0, 0, 4096);
  d.filter = filter_from_scene(s);
  d.filter_backend = s.get<std::string>("fdk.filter.backend", "auto");
  d.input = s.get_input_path("fdk.input");
  d.raw = RawOptions::from_scene(s);
  if (d.raw.tigre) tigre_grid(s, *d.raw.tigre, size_given, d);
  const bool rct = !d.input.empty();
  if (rct && d.raw.given())
    throw InputError(s.where("fdk.input") + " and fdk.raw.projections both name projections; give one");
  d.source = rct ? Source::rabbitct : d.raw.given() ? Source::raw : Source::simulated;
  d.write_raw = s.get<bool>("fdk.write_raw", false);
  d.write_rct = s.get<bool>("fdk.write_rct", false);
  d.reference = s.get_enum("fdk.reference", ReferenceRun::none, kReferenceRunNames);
  d.reference_volume = s.get_input_path("fdk.reference_volume");
  d.algorithm = s.get_enum("fdk.algorithm", Algorithm::fdk, kAlgorithmNames);
  // validated even when a file is read; only FDK's weights need a short scan at least
  d.geometry = CArmGeometry::from_scene(s, "fdk.geometry.", d.algorithm == Algorithm::fdk);
  d.phantom = phantom_from_scene(s, d.mu);  // also with a file: keys validated, not reported unused
  if (d.source != Source::rabbitct) {
    const auto hu = s.get<std::vector<double>>("fdk.hu_scale", {1000.0 / d.mu, 0.0});
    if (hu.size() != 2) throw InputError(s.where("fdk.hu_scale") + " must be [scale, offset]");
    d.hu_scale = {static_cast<float>(hu[0]), static_cast<float>(hu[1])};
  }
  const auto win = s.get<std::vector<double>>("fdk.display_window",
                                              rct ? std::vector<double>{0, 0} : std::vector<double>{0.0, 0.4 * d.mu});
  if (win.size() != 2) throw InputError(s.where("fdk.display_window") + " must be [lo, hi] (mm⁻¹)");
  d.window = {win[0], win[1]};
  d.crosscheck = crosscheck_from_scene(s);
  iterative_from_scene(s, d);
  return d;
}

}  // namespace tomo::fdk
