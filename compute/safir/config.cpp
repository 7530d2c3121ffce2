// Reads and validates the [safir] section of a scene.
#include "compute/safir/config.hpp"

#include <cmath>

#include "compute/core/enum_name.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"

namespace tomo::safir {

namespace {
constexpr std::array<EnumName<SensitivityMode>, 2> kSensitivityNames{
    {{"symmetric", SensitivityMode::symmetric}, {"all_pairs", SensitivityMode::all_pairs}}};
constexpr std::array<EnumName<EventsFile>, 3> kEventsFileNames{
    {{"", EventsFile::none}, {"clm", EventsFile::clm}, {"castor", EventsFile::castor}}};
constexpr std::array<EnumName<SimulatorChoice>, 3> kSimulatorNames{
    {{"auto", SimulatorChoice::automatic}, {"host", SimulatorChoice::host}, {"cuda", SimulatorChoice::cuda}}};
}

SafirConfig SafirConfig::from_scene(const Scene& s) {
  SafirConfig c;
  c.scanner = scanner_from_scene(s);
  c.box = image_from_scene(s);
  c.phantom = Phantom::from_scene(s);
  const auto events = s.get<std::int64_t>("safir.events", 1000000);
  if (events < 1 || events > (std::int64_t(1) << 31))
    throw InputError(str_cat(s.where("safir.events"), " must be in [1, 2^31], got ", events));
  c.simulation.events = static_cast<std::uint64_t>(events);
  c.simulation.duration_s = s.get_in_range("safir.duration_s", 1.0, 1e-3, 1e6);
  const auto seed = s.get<std::int64_t>("safir.seed", 1);
  if (seed < 0) throw InputError(str_cat(s.where("safir.seed"), " must be >= 0, got ", seed));
  c.simulation.seed = static_cast<std::uint64_t>(seed);
  c.simulation.randoms_fraction = s.get_in_range("safir.randoms_fraction", 0.0, 0.0, 0.9);
  c.simulation.depth_of_interaction = s.get<bool>("safir.depth_of_interaction", false);
  c.simulator = s.get_enum("safir.simulator", SimulatorChoice::automatic, kSimulatorNames);
  c.mlem.iterations = s.get_int_in_range("safir.iterations", 15, 1, 10000);
  c.mlem.halve_events = s.get<bool>("safir.halve_events", false);
  c.pet = pet::read_pet_options(s, "safir", c.mlem.iterations);
  if (c.mlem.halve_events && c.pet.recon.algorithm != pet::Algorithm::mlem)
    throw InputError(str_cat(s.where("safir.halve_events"), " halves the events of ML-EM; safir.algorithm = \"",
                             enum_name(pet::kAlgorithmNames, c.pet.recon.algorithm), "\" takes its own subsets"));
  c.save_iterations = pet::read_save_iterations(s, "safir", c.mlem.iterations);
  c.corrections = pet::read_correction_options(s, "safir");
  if (c.mlem.halve_events && c.corrections.any())
    throw InputError(str_cat(s.where("safir.halve_events"), " runs the backend's own ML-EM, without the correction terms"));
  c.simulation.scatter_fraction = s.get_in_range("safir.scatter_fraction", 0.0, 0.0, 0.9);
  if (c.simulation.randoms_fraction + c.simulation.scatter_fraction >= 1.0)
    throw InputError(str_cat(s.where("safir.scatter_fraction"), ": randoms and scatter fractions of the simulation add up to ",
                             c.simulation.randoms_fraction + c.simulation.scatter_fraction, "; no trues would be left"));
  c.options.threads = s.get_int_in_range("safir.threads", 0, 0, 4096);
  c.options.pass = s.get_enum("safir.pass", Pass::automatic, kPassNames);
  c.options.tile_blocks_per_sm = s.get_int_in_range("safir.tile_blocks_per_sm", 2, 1, 8);
  c.fov_mask = s.get<bool>("safir.fov_mask", true);
  c.sensitivity = s.get_enum("safir.sensitivity", SensitivityMode::symmetric, kSensitivityNames);
  c.analysis.r_in_mm = s.get_in_range("safir.analysis.r_in_mm", 1.0, 1e-3, 1e3);
  c.analysis.r_out_mm = s.get_in_range("safir.analysis.r_out_mm", 2.0, 1e-3, 1e3);
  if (c.analysis.r_out_mm <= c.analysis.r_in_mm)
    throw InputError(str_cat(s.where("safir.analysis.r_out_mm"), " = ", c.analysis.r_out_mm,
                             " must exceed safir.analysis.r_in_mm = ", c.analysis.r_in_mm));
  if (c.analysis.r_out_mm > 20 * c.box.voxel_mm)
    throw InputError(str_cat(s.where("safir.analysis.r_out_mm"), " = ", c.analysis.r_out_mm, " mm is beyond 20 voxels"));
  c.analysis.threshold = s.get_in_range("safir.analysis.threshold", 5.0, 0.0, 1e6);
  // Flat [x1, y1, z1, x2, y2, z2, ...] (mm): the scene reader has no nested arrays.
  const auto pos = s.get<std::vector<double>>("safir.analysis.positions_mm", {});
  if (pos.size() % 3 != 0)
    throw InputError(s.where("safir.analysis.positions_mm") + ": holds x, y, z triples (mm), got " +
                     std::to_string(pos.size()) + " numbers");
  for (std::size_t i = 0; i < pos.size(); i += 3) c.analysis.positions.push_back({pos[i], pos[i + 1], pos[i + 2]});
  // A position outside the image has no voxels around it: S = B = E = 0 would be reported.
  const Grid3 g = c.box.grid();
  for (const auto& p : c.analysis.positions)
    for (int a = 0; a < 3; ++a) {
      const double lo = g.origin_mm[a] - 0.5 * g.voxel_mm[a], hi = lo + g.dims[a] * g.voxel_mm[a];
      if (!(p[a] >= lo && p[a] <= hi))
        throw InputError(str_cat(s.where("safir.analysis.positions_mm"), ": position (", p[0], ", ", p[1], ", ", p[2],
                                 ") mm lies outside the image, which spans [", g.origin_mm[0] - 0.5 * g.voxel_mm[0], ", ",
                                 -(g.origin_mm[0] - 0.5 * g.voxel_mm[0]), "] x [", g.origin_mm[1] - 0.5 * g.voxel_mm[1],
                                 ", ", -(g.origin_mm[1] - 0.5 * g.voxel_mm[1]), "] x [",
                                 g.origin_mm[2] - 0.5 * g.voxel_mm[2], ", ", -(g.origin_mm[2] - 0.5 * g.voxel_mm[2]),
                                 "] mm"));
    }
  c.frame_s = s.get_in_range("safir.frame_s", 0.0, 0.0, 1e6);
  if (c.frame_s > 0 && std::ceil(c.simulation.duration_s / c.frame_s - 1e-9) > double(kMaxFrames))
    throw InputError(str_cat(s.where("safir.frame_s"), " = ", c.frame_s, " s cuts safir.duration_s = ",
                             c.simulation.duration_s, " s into ", std::ceil(c.simulation.duration_s / c.frame_s - 1e-9),
                             " frames; a 4D NIfTI file holds at most ", kMaxFrames));
  c.events_file = s.get_input_path("safir.events_file").string();
  c.crystal_map = s.get_input_path("safir.crystal_map").string();
  c.write_events = s.get_enum("safir.write_events", EventsFile::none, kEventsFileNames);
  const auto cc = s.get<std::int64_t>("safir.crosscheck_events", 200000);
  if (cc < 1) throw InputError(s.where("safir.crosscheck_events") + " must be >= 1");
  c.crosscheck_events = static_cast<std::uint64_t>(cc);
  return c;
}

}  // namespace tomo::safir
