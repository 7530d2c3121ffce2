// NcclTeam: ncclCommInitAll over the team's devices, one stream per rank, NCCL's entry points
// looked up with dlsym so that nothing links against libnccl.
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
  decltype(&ncclAllReduce) all_reduce = nullptr;
  decltype(&ncclBroadcast) broadcast = nullptr;
  decltype(&ncclCommDestroy) destroy = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  decltype(&ncclGetVersion) version = nullptr;
  std::vector<ncclComm_t> comms;
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

std::vector<int> resolve_gpus(const std::string& spec) {
  std::string why;
  const int count = device_count(&why);
  return parse_device_spec(spec, count,
                           count == 0 ? "no CUDA device (" + why + ")" : str_cat("this machine has ", count, " CUDA devices"));
}

NcclTeam::NcclTeam(std::vector<int> devices)
    : HostTeam(int(devices.size())), devices_(std::move(devices)), nccl_(std::make_unique<Nccl>()) {
  nccl_->streams.assign(devices_.size(), nullptr);
  if (devices_.size() < 2) return;  // one rank: no device collective needs NCCL
  ::setenv("NCCL_NVLS_ENABLE", "0", 0);
  const char* path = std::getenv("TOMO_NCCL_LIBRARY");
  for (const char* name : {path, "libnccl.so.2", "libnccl.so"})
    if (name && !nccl_->lib) nccl_->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!nccl_->lib)
    throw UnavailableError(str_cat("several GPUs need NCCL, which could not be loaded (", dlerror(),
                                   "): put libnccl.so.2 on LD_LIBRARY_PATH or name it in TOMO_NCCL_LIBRARY"));
  bind(nccl_->lib, nccl_->init_all, "ncclCommInitAll");
  bind(nccl_->lib, nccl_->all_reduce, "ncclAllReduce");
  bind(nccl_->lib, nccl_->broadcast, "ncclBroadcast");
  bind(nccl_->lib, nccl_->destroy, "ncclCommDestroy");
  bind(nccl_->lib, nccl_->error_string, "ncclGetErrorString");
  bind(nccl_->lib, nccl_->version, "ncclGetVersion");
  nccl_->check(nccl_->version(&nccl_->version_code), "ncclGetVersion");
  nccl_->comms.assign(devices_.size(), nullptr);
  nccl_->check(nccl_->init_all(nccl_->comms.data(), int(devices_.size()), devices_.data()), "ncclCommInitAll");
}

NcclTeam::~NcclTeam() {
  // Each stream belongs to its rank's device: destroy it there.
  for (std::size_t r = 0; r < nccl_->streams.size(); ++r)
    if (nccl_->streams[r] && cudaSetDevice(devices_[r]) == cudaSuccess) cudaStreamDestroy(nccl_->streams[r]);
}

std::string NcclTeam::describe() const {
  std::string d = str_cat(devices_.size(), " GPUs (CUDA");
  for (int dev : devices_) d += str_cat(" ", dev);
  d += ")";
  if (nccl_->version_code) d += str_cat(", NCCL ", nccl_->version_code);
  return d;
}

void NcclTeam::allreduce_sum_device(int rank, float* data, std::size_t n) {
  if (devices_.size() < 2) return;
  cudaStream_t& s = nccl_->streams.at(rank);
  if (!s) TOMO_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the projector's kernels that wrote `data`
  nccl_->check(nccl_->all_reduce(data, data, n, ncclFloat32, ncclSum, nccl_->comms[rank], s), "ncclAllReduce");
  TOMO_CUDA_CHECK(cudaStreamSynchronize(s));
}

void NcclTeam::broadcast_device(int rank, float* data, std::size_t n, int root) {
  if (devices_.size() < 2) return;
  cudaStream_t& s = nccl_->streams.at(rank);
  if (!s) TOMO_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  nccl_->check(nccl_->broadcast(data, data, n, ncclFloat32, root, nccl_->comms[rank], s), "ncclBroadcast");
  TOMO_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace tomo::cuda
