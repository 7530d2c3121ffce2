// The multi-GPU layer's NCCL team: one rank (thread) per CUDA device of this process, device
// collectives through NCCL, host ones through HostTeam. NCCL is loaded at run time (dlopen of
// libnccl.so.2, or $TOMO_NCCL_LIBRARY): the 200 MB library is needed only with several GPUs,
// and a binary without it still runs on one (docs/multigpu.md).
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "compute/core/team.hpp"

namespace tomo::cuda {

// Resolves "all", "N" or "0,2,3" against the CUDA devices here: the device indices, or
// UnavailableError (exit 3) naming what was asked and what exists; InputError for bad text.
// With a group, processes sharing a host take successive blocks (process_devices).
std::vector<int> resolve_gpus(const std::string& spec, const ProcessGroup* group = nullptr);

class NcclTeam final : public HostTeam {
 public:
  // One rank per entry of `devices`. With more than one device NCCL must load and initialise,
  // else UnavailableError says why. NCCL's NVLink multicast stays off (NCCL_NVLS_ENABLE=0
  // unless the environment sets it).
  explicit NcclTeam(std::vector<int> devices);
  // The ranks of this process on `devices`, in a team spanning `group`'s processes (mpirun):
  // process 0 makes the NCCL unique id, the group broadcasts it (MPI_Bcast), and every process
  // joins with ncclCommInitRank for each of its ranks (global rank = process offset + local).
  NcclTeam(std::vector<int> devices, ProcessGroup* group);
  ~NcclTeam() override;
  std::string describe() const override;
  int device(int rank) const { return devices_.at(std::size_t(rank - first_local_rank())); }
  // In-place sum / broadcast of n floats of device memory on rank's device, called by every
  // (global) rank's thread (whose current device is its own). The device's queued work is finished
  // first, and the collective is finished on return.
  void allreduce_sum_device(int rank, float* data, std::size_t n);
  void broadcast_device(int rank, float* data, std::size_t n, int root);

 private:
  struct Nccl;
  void load();
  void init_across_processes(ProcessGroup& group);
  std::vector<int> devices_;
  std::unique_ptr<Nccl> nccl_;
};

}  // namespace tomo::cuda
