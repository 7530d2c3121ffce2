// CUDA device discovery and selection (see device.hpp).
#include "cuda/core/device.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "compute/core/error.hpp"
#include "compute/core/memory.hpp"
#include "cuda/core/check.hpp"

namespace tomo::cuda {

int device_count(std::string* why_none) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    if (why_none) *why_none = str_cat(cudaGetErrorName(err), ": ", cudaGetErrorString(err));
    return 0;
  }
  if (count <= 0) {
    if (why_none) *why_none = "the CUDA runtime reports 0 devices";
    return 0;
  }
  return count;
}

std::vector<DeviceInfo> list_devices(std::string* why_none) {
  std::vector<DeviceInfo> out;
  const int n = device_count(why_none);
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    TOMO_CUDA_CHECK(cudaGetDeviceProperties(&p, i));
    DeviceInfo d;
    d.index = i;
    d.name = p.name;
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.total_mem = p.totalGlobalMem;
    d.sm_count = p.multiProcessorCount;
    d.warp_size = p.warpSize;
    d.max_threads_per_block = p.maxThreadsPerBlock;
    d.shared_mem_per_block_optin = p.sharedMemPerBlockOptin;
    d.l2_cache_bytes = p.l2CacheSize;
    char bus[32] = {};
    std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
    d.pci_bus_id = bus;
    out.push_back(std::move(d));
  }
  return out;
}

bool have_device() { return device_count() > 0; }

void select_device(int index) {
  std::string why;
  const int n = device_count(&why);
  if (n == 0) throw InputError(str_cat("CUDA device ", index, " requested but there is no CUDA device (", why, ")"));
  if (index < 0 || index >= n)
    throw InputError(str_cat("CUDA device index ", index, " is out of range: ", n, " device(s), valid 0..", n - 1));
  TOMO_CUDA_CHECK(cudaSetDevice(index));
}

int current_device() {
  int d = 0;
  TOMO_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

std::string describe(const DeviceInfo& info) {
  char mem[32];
  std::snprintf(mem, sizeof mem, "%.1f GiB", static_cast<double>(info.total_mem) / (1024.0 * 1024.0 * 1024.0));
  return str_cat("CUDA ", info.index, ": ", info.name, ", cc ", info.cc_major, ".", info.cc_minor, ", ",
                 info.sm_count, " SMs, ", mem);
}

void require_device_memory(double bytes, const std::string& what) {
  std::size_t free_b = 0, total_b = 0;
  TOMO_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (bytes <= static_cast<double>(free_b)) return;
  throw UnavailableError(str_cat(what, " needs ", format_bytes(bytes), " of GPU memory, ", format_bytes(double(free_b)),
                                 " free on CUDA ", current_device()));
}

Availability cuda_availability() {
  std::string why;
  if (device_count(&why) > 0) return {true, {}};
  return {false, "no CUDA device (" + why + ")"};
}

}  // namespace tomo::cuda
