// NcclTeam: ncclCommInitAll over the team's devices (one process), or ncclCommInitRank with the
// unique id broadcast over MPI (several), one stream per rank, NCCL's entry points looked up
// with dlsym so that nothing links against libnccl.
#include "cuda/multi/nccl_team.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>

#include <cstdlib>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"

namespace tomo::cuda {

struct NcclTeam::Nccl {
  void* lib = nullptr;
  decltype(&ncclCommInitAll) init_all = nullptr;
  decltype(&ncclCommInitRank) init_rank = nullptr;
  decltype(&ncclGetUniqueId) unique_id = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
  decltype(&ncclAllReduce) all_reduce = nullptr;
  decltype(&ncclBroadcast) broadcast = nullptr;
  decltype(&ncclCommDestroy) destroy = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  decltype(&ncclGetVersion) version = nullptr;
  std::vector<ncclComm_t> comms;      // one per rank of this process (local index)
  std::vector<cudaStream_t> streams;  // made by each rank on its own device, on first use
  int version_code = 0;

  void check(ncclResult_t r, const char* what) const {
    if (r != ncclSuccess) throw Error(str_cat("NCCL ", what, " failed: ", error_string ? error_string(r) : "?"));
  }
  ~Nccl() {
    for (auto c : comms)
      if (c && destroy) destroy(c);
    if (lib) dlclose(lib);
  }
};

namespace {

template <class F>
void bind(void* lib, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) throw UnavailableError(str_cat("NCCL library lacks ", name));
}

}  // namespace

std::vector<int> resolve_gpus(const std::string& spec, const ProcessGroup* group) {
  std::string why;
  const int count = device_count(&why);
  return process_devices(spec, count,
                         count == 0 ? "no CUDA device (" + why + ")" : str_cat("this machine has ", count, " CUDA devices"),
                         group);
}

NcclTeam::NcclTeam(std::vector<int> devices) : NcclTeam(std::move(devices), nullptr) {}

NcclTeam::NcclTeam(std::vector<int> devices, ProcessGroup* group)
    : HostTeam(int(devices.size()), group), devices_(std::move(devices)), nccl_(std::make_unique<Nccl>()) {
  nccl_->streams.assign(devices_.size(), nullptr);
  if (size() < 2) return;  // one rank: no device collective needs NCCL
  load();
  nccl_->comms.assign(devices_.size(), nullptr);
  if (group)
    init_across_processes(*group);
  else
    nccl_->check(nccl_->init_all(nccl_->comms.data(), int(devices_.size()), devices_.data()), "ncclCommInitAll");
}

void NcclTeam::load() {
  ::setenv("NCCL_NVLS_ENABLE", "0", 0);
  const char* path = std::getenv("TOMO_NCCL_LIBRARY");
  for (const char* name : {path, "libnccl.so.2", "libnccl.so"})
    if (name && !nccl_->lib) nccl_->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!nccl_->lib)
    throw UnavailableError(str_cat("several GPUs need NCCL, which could not be loaded (", dlerror(),
                                   "): put libnccl.so.2 on LD_LIBRARY_PATH or name it in TOMO_NCCL_LIBRARY"));
  bind(nccl_->lib, nccl_->init_all, "ncclCommInitAll");
  bind(nccl_->lib, nccl_->init_rank, "ncclCommInitRank");
  bind(nccl_->lib, nccl_->unique_id, "ncclGetUniqueId");
  bind(nccl_->lib, nccl_->group_start, "ncclGroupStart");
  bind(nccl_->lib, nccl_->group_end, "ncclGroupEnd");
  bind(nccl_->lib, nccl_->all_reduce, "ncclAllReduce");
  bind(nccl_->lib, nccl_->broadcast, "ncclBroadcast");
  bind(nccl_->lib, nccl_->destroy, "ncclCommDestroy");
  bind(nccl_->lib, nccl_->error_string, "ncclGetErrorString");
  bind(nccl_->lib, nccl_->version, "ncclGetVersion");
  nccl_->check(nccl_->version(&nccl_->version_code), "ncclGetVersion");
}

void NcclTeam::init_across_processes(ProcessGroup& group) {
  // The id is NCCL's bootstrap address: made once, by process 0, and handed to every process
  // through MPI (the only thing besides host data that MPI carries, docs/multigpu.md).
  ncclUniqueId id{};
  if (group.rank() == 0) nccl_->check(nccl_->unique_id(&id), "ncclGetUniqueId");
  group.broadcast(&id, sizeof id, 0);
  // Several ranks of one process join inside a group call, else the first would wait for the rest.
  nccl_->check(nccl_->group_start(), "ncclGroupStart");
  for (std::size_t l = 0; l < devices_.size(); ++l) {
    TOMO_CUDA_CHECK(cudaSetDevice(devices_[l]));
    nccl_->check(nccl_->init_rank(&nccl_->comms[l], size(), id, first_local_rank() + int(l)), "ncclCommInitRank");
  }
  nccl_->check(nccl_->group_end(), "ncclGroupEnd (communicator set-up across processes)");
}

NcclTeam::~NcclTeam() {
  // Each stream belongs to its rank's device: destroy it there.
  for (std::size_t r = 0; r < nccl_->streams.size(); ++r)
    if (nccl_->streams[r] && cudaSetDevice(devices_[r]) == cudaSuccess) cudaStreamDestroy(nccl_->streams[r]);
}

std::string NcclTeam::describe() const {
  std::string d = str_cat(size(), " GPUs (CUDA");
  for (int dev : devices_) d += str_cat(" ", dev);
  d += process_group() ? str_cat(" here; ", HostTeam::describe(), ")") : std::string(")");
  if (nccl_->version_code) d += str_cat(", NCCL ", nccl_->version_code);
  return d;
}

void NcclTeam::allreduce_sum_device(int rank, float* data, std::size_t n) {
  if (size() < 2) return;
  const std::size_t l = std::size_t(rank - first_local_rank());
  cudaStream_t& s = nccl_->streams.at(l);
  if (!s) TOMO_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the projector's kernels that wrote `data`
  nccl_->check(nccl_->all_reduce(data, data, n, ncclFloat32, ncclSum, nccl_->comms.at(l), s), "ncclAllReduce");
  TOMO_CUDA_CHECK(cudaStreamSynchronize(s));
}

void NcclTeam::broadcast_device(int rank, float* data, std::size_t n, int root) {
  if (size() < 2) return;
  const std::size_t l = std::size_t(rank - first_local_rank());
  cudaStream_t& s = nccl_->streams.at(l);
  if (!s) TOMO_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  nccl_->check(nccl_->broadcast(data, data, n, ncclFloat32, root, nccl_->comms.at(l), s), "ncclBroadcast");
  TOMO_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace tomo::cuda
