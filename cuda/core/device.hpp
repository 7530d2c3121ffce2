// CUDA device discovery and selection. Never throws when the runtime or driver is missing:
// device_count() returns 0 with a reason, so backends report {false, "no CUDA device (...)"}.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "compute/core/registry.hpp"

namespace tomo::cuda {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  std::size_t total_mem = 0;              // bytes
  int sm_count = 0;
  int warp_size = 0;
  int max_threads_per_block = 0;
  std::size_t shared_mem_per_block_optin = 0;  // bytes a block may opt in to
  int l2_cache_bytes = 0;
  std::string pci_bus_id;                 // "0000:19:00.0"
};

// Number of usable CUDA devices; 0 when none, the runtime has no driver, or init fails.
// When 0 and why_none is given, *why_none says why (never empty then).
int device_count(std::string* why_none = nullptr);

// Properties of every device; empty (with *why_none set) when there is none.
std::vector<DeviceInfo> list_devices(std::string* why_none = nullptr);

bool have_device();

// cudaSetDevice with a range check: InputError naming the index and the count when out of range.
void select_device(int index);
int current_device();

// "CUDA 0: NVIDIA H200, cc 9.0, 132 SMs, 139.8 GiB"
std::string describe(const DeviceInfo& info);

// Throws UnavailableError "<what> needs X of GPU memory, Y free on CUDA d" when `bytes` exceed
// the current device's free memory (cudaMemGetInfo): for buffers that grow with the scene
// and have no split to fall back on.
void require_device_memory(double bytes, const std::string& what);

// What a CUDA backend's available() returns: {true, ""} or {false, "no CUDA device (<reason>)"}.
Availability cuda_availability();

}  // namespace tomo::cuda
