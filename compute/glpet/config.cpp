// glpet scene reading and validation (names the file and key at fault).
#include "compute/glpet/config.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "compute/core/sensitivity_mask.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/image_volume.hpp"
#include "compute/pet/attenuation.hpp"
#include "compute/glpet/ring.hpp"

namespace tomo::glpet {

namespace {
Vec3 unit(const Scene& s, const std::string& key, const Vec3& v) {
  const double n = norm(v);
  if (!(n > 0) || !std::isfinite(n)) throw InputError(s.where(key) + " must be a non-zero finite vector");
  return scale(v, 1 / n);
}

Module read_module(const Scene& s, const std::string& k) {
  Module m;
  m.centre = s.require<std::array<double, 3>>(k + ".centre");
  m.normal = unit(s, k + ".normal", s.require<std::array<double, 3>>(k + ".normal"));
  m.axis_a = unit(s, k + ".axis_a", s.require<std::array<double, 3>>(k + ".axis_a"));
  if (std::fabs(dot(m.axis_a, m.normal)) > 1e-6)
    throw InputError(s.where(k + ".axis_a") + " must be perpendicular to the normal");
  const Vec3 t_default = cross(m.normal, m.axis_a);
  m.axis_t = unit(s, k + ".axis_t", s.get<std::array<double, 3>>(k + ".axis_t", t_default));
  if (std::fabs(dot(m.axis_t, m.normal)) > 1e-6 || std::fabs(dot(m.axis_t, m.axis_a)) > 1e-6)
    throw InputError(s.where(k + ".axis_t") + " must be perpendicular to the normal and to axis_a");
  const auto n = s.get<std::vector<int>>(k + ".detectors", {});
  if (n.size() != 2 || n[0] < 1 || n[1] < 1 || n[0] > 4096 || n[1] > 4096)
    throw InputError(s.where(k + ".detectors") + " must be [N_a, N_t] with 1 <= N <= 4096");
  m.n_a = n[0];
  m.n_t = n[1];
  const auto p = s.get<std::vector<double>>(k + ".pitch_mm", {});
  if (p.size() != 2 || !(p[0] > 0) || !(p[1] > 0) || !std::isfinite(p[0]) || !std::isfinite(p[1]))
    throw InputError(s.where(k + ".pitch_mm") + " must be [pitch_a, pitch_t] > 0 (mm)");
  m.pitch_a = p[0];
  m.pitch_t = p[1];
  m.validate(s.where(k));
  return m;
}
// The files every glpet run writes in its folder (problem.cpp's write_outputs, and the report).
constexpr std::array<std::string_view, 10> kRunOutputs{
    "activity.nii",       "activity_mip.png",   "phantom_activity.nii", "phantom_activity_mip.png",
    "sensitivity.nii",    "sensitivity_mip.png", "atlas_measured.png",  "atlas_estimated.png",
    "correspondence_centre.png", "report.json"};

DataSettings read_data_settings(const Scene& s) {
  DataSettings d;
  d.counts = s.get_input_path("glpet.data.counts");
  d.listmode = s.get_input_path("glpet.data.listmode");
  if (!d.counts.empty() && !d.listmode.empty())
    throw InputError(s.where("glpet.data.listmode") + " and glpet.data.counts both given: reconstruct one of them");
  d.write = s.get<std::vector<std::string>>("glpet.data.write", {});
  for (const std::string& name : d.write) {
    const std::filesystem::path p(name);
    const std::string ext = p.extension().string();
    if (name.empty() || p.has_parent_path() || name.front() == '.' ||
        (ext != ".npy" && ext != ".nii" && ext != ".lm" && ext != ".txt"))
      throw InputError(s.where("glpet.data.write") + str_cat(": '", name, "' must be a file name (no folder) ending in "
                                                             ".npy or .nii (LOR counts), .lm or .txt (list mode)"));
    // A data file named like an output of the run would be overwritten by it (or overwrite it).
    if (std::find(kRunOutputs.begin(), kRunOutputs.end(), name) != kRunOutputs.end())
      throw InputError(s.where("glpet.data.write") + str_cat(": '", name, "' is the name of an output of the run: "
                                                             "choose another name"));
    if (std::count(d.write.begin(), d.write.end(), name) > 1)
      throw InputError(s.where("glpet.data.write") + str_cat(": '", name, "' is named twice"));
  }
  return d;
}
}  // namespace

Scanner read_scanner(const Scene& s) {
  if (s.has("glpet.ring")) {
    if (s.array_size("glpet.modules") > 0 || s.array_size("glpet.pairs") > 0)
      throw InputError(s.where("glpet.ring") + " generates the modules and pairs: remove [[glpet.modules]] and "
                       "[[glpet.pairs]], or [glpet.ring]");
    return ring_scanner(read_ring(s));
  }
  std::vector<Module> modules;
  const std::size_t nm = s.array_size("glpet.modules");
  if (nm < 2) throw InputError(s.where("glpet.modules") + " needs at least two [[glpet.modules]] tables");
  for (std::size_t i = 0; i < nm; ++i) modules.push_back(read_module(s, s.element_key("glpet.modules", i)));
  Scanner sc;
  const std::size_t np = s.array_size("glpet.pairs");
  if (np == 0) {
    if (nm != 2) throw InputError(s.where("glpet.pairs") + " is required when there are more than two modules");
    sc.pairs.push_back(ModulePair{{modules[0], modules[1]}});
    sc.pair_modules.push_back({0, 1});
  }
  for (std::size_t i = 0; i < np; ++i) {
    const std::string k = s.element_key("glpet.pairs", i) + ".modules";
    const auto idx = s.require<std::vector<int>>(k);
    if (idx.size() != 2 || idx[0] == idx[1] || idx[0] < 0 || idx[1] < 0 || idx[0] >= int(nm) || idx[1] >= int(nm))
      throw InputError(s.where(k) + str_cat(" must be two different module indices in [0, ", nm, ")"));
    ModulePair pair{{modules[idx[0]], modules[idx[1]]}};
    pair.validate(s.where(k));
    sc.pairs.push_back(pair);
    sc.pair_modules.push_back({idx[0], idx[1]});
  }
  return sc;
}

GlpetScene read_glpet_scene(const Scene& s) {
  GlpetScene g;
  SystemModel& sys = g.system;
  sys.scanner = read_scanner(s);
  s.declare_optional({"glpet.gpus"});  // read by the run when --gpus is not given (multi_run.cpp)
  const auto dims = s.get<std::array<int, 3>>("glpet.voxels", {128, 128, 128});
  const auto vox = s.get<std::array<double, 3>>("glpet.voxel_mm", {0.5, 0.5, 0.5});
  for (int a = 0; a < 3; ++a) {
    if (dims[a] < 1 || dims[a] > 2048) throw InputError(s.where("glpet.voxels") + " entries must be in [1, 2048]");
    if (!(vox[a] > 0) || !std::isfinite(vox[a])) throw InputError(s.where("glpet.voxel_mm") + " entries must be > 0");
  }
  sys.grid = Grid3::centred(dims, vox);
  sys.R = s.get_int_in_range("glpet.R", 4, 1, 64);
  sys.N = s.get_int_in_range("glpet.N", 1, 1, 1024);
  sys.K = s.get_int_in_range("glpet.K", 32, 1, 4096);
  g.projector.system_cache = s.get_enum("glpet.system_cache", Use::automatic, kUseNames);
  g.projector.cuda_gl_interop = s.get_enum("glpet.cuda_gl_interop", Use::automatic, kUseNames);
  g.iterations = s.get_int_in_range("glpet.iterations", 10, 0, 100000);
  g.pet = pet::read_pet_options(s, "glpet", g.iterations);
  g.save_iterations = pet::read_save_iterations(s, "glpet", g.iterations);
  g.sensitivity_threshold =
      s.get_in_range("glpet.sensitivity_threshold", kDefaultSensitivityThreshold, 0.0, 1.0);
  // Read for every scanner (so the key is never reported unused); only a ring has a cylinder.
  const bool fov_mask = s.get<bool>("glpet.fov_mask", true);
  if (fov_mask && s.has("glpet.ring")) g.fov = ring_field_of_view(read_ring(s));
  g.supersampling = s.get_int_in_range("glpet.supersampling", 2, 1, 8);
  g.mc.histories = s.get<std::int64_t>("glpet.mc.histories", 20'000'000);
  if (g.mc.histories < 1 || g.mc.histories > kMaxHistories)
    throw InputError(s.where("glpet.mc.histories") + " must be in [1, 4e9], got " + std::to_string(g.mc.histories));
  g.mc.seed = std::uint64_t(s.get<std::int64_t>("glpet.mc.seed", 1));
  g.mc.total_counts = s.get_in_range("glpet.mc.total_counts", 0.0, 0.0, 1e15);
  g.mc_device = s.get_enum("glpet.mc.device", McDevice::automatic, kMcDeviceNames);

  auto& x = g.crosscheck;
  x.voxels = s.get_int_in_range("glpet.crosscheck.voxels", x.voxels, 1, 2048);
  x.tolerance = s.get_in_range("glpet.crosscheck.tolerance", x.tolerance, 0, 1);
  x.tolerance_raster = s.get_in_range("glpet.crosscheck.tolerance_raster", x.tolerance_raster, 0, 1);
  x.line_tolerance = s.get_in_range("glpet.crosscheck.line_tolerance", x.line_tolerance, 0, 1);
  x.line_tolerance_raster = s.get_in_range("glpet.crosscheck.line_tolerance_raster", x.line_tolerance_raster, 0, 1);

  g.data = read_data_settings(s);
  g.has_phantom = s.array_size("glpet.activity") > 0;
  if (!g.has_phantom && !g.data.measured())
    throw InputError(s.where("glpet.activity") + " needs at least one [[glpet.activity]] shape (or measured data: "
                     "glpet.data.counts or glpet.data.listmode)");
  if (g.has_phantom) g.activity = Phantom::from_scene(s, "glpet.activity");
  if (s.array_size("glpet.attenuation") > 0) g.attenuation = Phantom::from_scene(s, "glpet.attenuation");
  g.activity_volume = g.has_phantom ? g.activity.voxelize(sys.grid, g.supersampling) : VolumeF(sys.grid, 0.0f);
  sys.sigma_t = g.attenuation.shapes.empty() ? VolumeF(sys.grid, 0.0f) : g.attenuation.voxelize(sys.grid, g.supersampling);
  // Additive shapes (a cold sphere = −background) may leave rounding-level negatives.
  auto clamp_tiny = [&](VolumeF& v, const char* key) {
    for (float& a : v.data) {
      if (a < -1e-5f) throw InputError(s.where(key) + str_cat(" shapes add up to a negative value ", a));
      a = std::max(a, 0.0f);
    }
  };
  clamp_tiny(g.activity_volume, "glpet.activity");
  clamp_tiny(sys.sigma_t, "glpet.attenuation");
  // The terms of the forward model (docs/pet.md): a μ-map (cm⁻¹) adds to the shapes' σ_t (1/mm),
  // resampled onto the grid; attenuation is then part of A, in the projector and the Monte-Carlo.
  g.corrections = pet::read_correction_options(s, "glpet");
  if (!g.corrections.attenuation_map.empty()) {
    const std::string what = str_cat("glpet.attenuation_map '", g.corrections.attenuation_map.string(), "'");
    const pet::AttenuationMap mu(read_image_volume(g.corrections.attenuation_map), what);  // checks μ >= 0
    const VolumeF on_grid = fit_to_grid(mu.volume(), sys.grid, GridFit::trilinear, what);
    for (std::size_t v = 0; v < on_grid.data.size(); ++v) sys.sigma_t.data[v] += 0.1f * on_grid.data[v];
  }
  const std::size_t lors = sys.scanner.lor_count();
  if (!g.corrections.normalisation.empty())
    (void)pet::read_term_file(g.corrections.normalisation, lors, "glpet.normalisation");  // checked up front
  if (!g.corrections.randoms.file.empty()) (void)pet::read_term_file(g.corrections.randoms.file, lors, "glpet.randoms.file");
  if (!g.corrections.scatter.file.empty()) (void)pet::read_term_file(g.corrections.scatter.file, lors, "glpet.scatter.file");
  McEffects& fx = g.mc_effects;
  fx.randoms_fraction = s.get_in_range("glpet.mc.randoms_fraction", 0.0, 0.0, 0.9);
  fx.scatter_fraction = s.get_in_range("glpet.mc.scatter_fraction", 0.0, 0.0, 0.9);
  if (fx.randoms_fraction + fx.scatter_fraction >= 1.0)
    throw InputError(s.where("glpet.mc.scatter_fraction") + ": randoms and scatter fractions add up to 1 or more");
  fx.seed = g.mc.seed;
  if (const auto eff = s.get_input_path("glpet.mc.efficiency"); !eff.empty()) {
    fx.efficiency = pet::read_term_file(eff, lors, "glpet.mc.efficiency");
    for (std::size_t l = 0; l < lors; ++l)
      if (fx.efficiency[l] > 1.0)
        throw InputError(str_cat("glpet.mc.efficiency '", eff.string(), "': value ", l, " is ", fx.efficiency[l],
                                 "; a detection efficiency is in [0, 1]"));
  }
  sys.validate();
  return g;
}

}  // namespace tomo::glpet
