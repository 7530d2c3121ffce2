// glpet's cuda backend on several GPUs of this process (and of the other processes mpirun
// started): one NcclTeam rank per device, each
// rank's projector on its device (plain device memory),
// the ML-EM sums all-reduced in device memory through NCCL (compute/glpet/distributed_mlem).
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/mpi_world.hpp"
#include "compute/core/registry.hpp"
#include "compute/glpet/distributed_mlem.hpp"
#include "cuda/core/device.hpp"
#include "cuda/glpet/cuda_buffer.hpp"
#include "cuda/multi/nccl_team.hpp"

namespace tomo::glpet {
namespace {

cuda_impl::CudaBuffer& device_buffer(BackendBuffer& b) {
  auto* d = dynamic_cast<cuda_impl::CudaBuffer*>(&b);
  if (!d) throw Error("glpet cuda multi-GPU: a buffer that is not the cuda backend's");
  return *d;
}

MultiDevice make_cuda_ranks(const std::string& gpus, const ProjectorOptions& options) {
  // Under mpirun: this process's devices, in a team over all processes (NCCL id over MPI).
  const std::vector<int> devices = cuda::resolve_gpus(gpus, process_group());
  auto team = std::make_unique<cuda::NcclTeam>(devices, process_group());
  cuda::NcclTeam* t = team.get();
  MultiDevice md;
  md.collectives.allreduce_sum = [t](int rank, BackendBuffer& b) {
    if (t->size() < 2) return;
    auto& d = device_buffer(b);
    t->allreduce_sum_device(rank, d.data(), d.size());
  };
  md.collectives.broadcast = [t](int rank, BackendBuffer& b, int root) {
    if (t->size() < 2) return;
    auto& d = device_buffer(b);
    t->broadcast_device(rank, d.data(), d.size(), root);
  };
  md.make_projector = [t, options](int rank, const SystemModel& share) {
    ProjectorOptions o = options;
    o.device = t->device(rank);
    // Plain device memory: NCCL reads it directly, and the rank's thread has no GL context.
    o.cuda_gl_interop = Use::off;
    auto op = BackendRegistry<Projector>::instance().create("cuda");
    op->configure(share, o);
    return op;
  };
  const auto infos = cuda::list_devices();
  for (int d : devices) md.devices.push_back(d < int(infos.size()) ? cuda::describe(infos[d]) : str_cat("CUDA ", d));
  md.team = std::move(team);
  return md;
}

const bool kRegisterCudaRanks = [] {
  register_multi_device("cuda", make_cuda_ranks);
  return true;
}();

}  // namespace
}  // namespace tomo::glpet
