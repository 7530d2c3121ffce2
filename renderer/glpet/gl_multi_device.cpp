// glpet's gl and gl-compute backends on several GPUs: each rank's thread holds a GL engine of
// its own (gl::ThreadEngine: a context on its GPU's EGL device), the ML-EM sums go through
// host memory (download, team sum, upload: 4 bytes a voxel per iteration and rank). Without
// NVIDIA EGL devices (llvmpipe) the ranks share the software device: the test path of CI.
#include <atomic>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/mpi_world.hpp"
#include "compute/core/registry.hpp"
#include "compute/glpet/distributed_mlem.hpp"
#include "renderer/gl/engine.hpp"

namespace tomo::glpet {
namespace {

// The rank thread's engine: made with its first projector, ended when the thread ends (after
// the rank's projector and buffers, which are locals of the rank's function).
thread_local std::unique_ptr<gl::ThreadEngine> t_engine;

// Several real GPUs driven from one process: NVIDIA's GL driver runs part of the contexts' work
// one after the other (measured in docs/perf/glpet-gl.md), so say how to get the speed-up: one
// process per GPU. Once per run.
void warn_one_process(const std::string& backend, int gpus) {
  static std::atomic<bool> said{false};
  if (said.exchange(true)) return;
  log_warn("glpet ", backend, ": ", gpus, " GPUs in one process: NVIDIA's GL driver serialises part of the ",
           "contexts' work (the forward projection does not speed up); for the full speed-up start one process ",
           "per GPU: mpirun --bind-to none -np ", gpus, " tomoraster run ... --backend ", backend,
           " --gpus 1 (docs/multigpu.md)");
}

MultiDeviceFactory gl_ranks(const std::string& backend) {
  return [backend](const std::string& gpus, const ProjectorOptions& options) {
    // Under mpirun the processes of a host take successive blocks of its devices.
    const std::vector<int> devices = process_devices(gpus, -1, "", process_group());
    MultiDevice md;
    md.team = std::make_unique<HostTeam>(int(devices.size()), process_group());
    md.collectives = host_collectives(*md.team);
    const int first = md.team->first_local_rank();
    md.make_projector = [backend, devices, options, first](int rank, const SystemModel& share) {
      const int device = devices[std::size_t(rank - first)];  // the process's own ranks index `devices`
      if (!t_engine) t_engine = std::make_unique<gl::ThreadEngine>(device);
      gl::shared_context();  // this thread's context, on the rank's device where EGL has it
      const int got = t_engine->device();
      if (got >= 0 && got != device)
        throw UnavailableError(str_cat("glpet ", backend, " rank ", rank, ": EGL offers no context on CUDA device ",
                                       device, " (got device ", got, ")"));
      if (got >= 0 && rank > first) warn_one_process(backend, int(devices.size()));
      auto op = BackendRegistry<Projector>::instance().create(backend);
      op->configure(share, options);
      return op;
    };
    for (int d : devices) md.devices.push_back(str_cat(backend, " on device ", d));
    return md;
  };
}

const bool kRegisterGlRanks = [] {
  register_multi_device("gl", gl_ranks("gl"));
  register_multi_device("gl-compute", gl_ranks("gl-compute"));
  return true;
}();

}  // namespace
}  // namespace tomo::glpet
