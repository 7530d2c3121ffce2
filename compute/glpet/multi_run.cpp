// glpet run on several devices: pick the backend's multi-device factory, run, report.
#include "compute/glpet/multi_run.hpp"

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/mpi_world.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/glpet/distributed_mlem.hpp"

namespace tomo::glpet {

std::string requested_gpus(const Scene& scene) {
  if (!runtime_options().gpus.empty()) return runtime_options().gpus;
  // Under mpirun every process is a part of one team: one device each unless told otherwise.
  return scene.get<std::string>("glpet.gpus", process_group() ? "1" : "");
}

void check_multi_device(const std::string& backend, const std::string& gpus) {
  (void)parse_device_spec(gpus, -1, "");
  if (!find_multi_device(backend))
    throw UnavailableError("glpet: backend " + backend + " does not run on several devices (cuda, gl, gl-compute "
                           "and cpu do); drop --gpus / glpet.gpus");
}

MlemResult reconstruct_on_devices(RunContext& ctx, const GlpetScene& g, std::span<const float> counts,
                                  const std::string& backend, const std::string& gpus, MlemOptions opt) {
  check_multi_device(backend, gpus);
  MultiDevice md = (*find_multi_device(backend))(gpus, g.projector);
  DistributedOptions dopt;
  dopt.mode = ctx.scene.get_enum("glpet.multi_gpu", MultiMode::exact, kMultiModeNames);
  dopt.split = ctx.scene.get_enum("glpet.multi_gpu_split", MultiSplit::automatic, kMultiSplitNames);
  dopt.mlem = opt;
  log_info("glpet: ", md.team->describe(), ", mode ", std::string(enum_name(kMultiModeNames, dopt.mode)));
  DistributedResult res = run_distributed_mlem(md, g.system, counts, dopt);
  log_info("glpet: split the ", res.split == MultiSplit::voxels ? "voxels" : "LORs", " across ", md.team->size(),
           " ranks");
  nlohmann::json rep = {{"mode", std::string(enum_name(kMultiModeNames, dopt.mode))},
                        {"split", std::string(enum_name(kMultiSplitNames, res.split))},
                        {"voxel_ranges", res.voxel_ranges},
                        {"ranks", md.team->size()},
                        {"team", md.team->describe()},
                        {"devices", allgather_strings(md.team->process_group(), md.devices)},
                        {"processes", md.team->process_group() ? md.team->process_group()->size() : 1},
                        {"share_nonzeros", res.share_nonzeros},
                        {"data_misfit", res.data_misfit}};
  if (dopt.mode == MultiMode::seed) {
    // The paper's scheme against the exact ML-EM it approximates, same data and iterations.
    rep["alpha"] = res.alpha;
    DistributedOptions eopt;
    eopt.mlem.iterations = opt.iterations;
    eopt.mlem.sensitivity_threshold = opt.sensitivity_threshold;
    eopt.mlem.outside_fov = opt.outside_fov;
    log_info("glpet: the exact mode on the same devices, for the comparison");
    const DistributedResult exact = run_distributed_mlem(md, g.system, counts, eopt);
    rep["exact_data_misfit"] = exact.data_misfit;
    rep["seed_vs_exact_relative_l2"] = relative_l2(res.mlem.x, exact.mlem.x);
    ctx.report.set_metric("seed_vs_exact_relative_l2", relative_l2(res.mlem.x, exact.mlem.x));
    ctx.report.set_metric("data_misfit_seed", res.data_misfit);
    ctx.report.set_metric("data_misfit_exact", exact.data_misfit);
  }
  ctx.report.set("multi_gpu", rep);
  return std::move(res.mlem);
}

}  // namespace tomo::glpet
