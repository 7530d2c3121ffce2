// Internal state of the interop resources (interop.hpp) shared by the buffer and image units:
// the registered handle or the copy-path staging memory, plus the helpers both paths use.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/interop.hpp"
#include "cuda/core/pinned_buffer.hpp"

namespace tomo::cuda::detail {

struct BufferState {
  unsigned gl = 0;
  std::size_t bytes = 0;
  MapAccess access = MapAccess::ReadWrite;
  cudaGraphicsResource_t resource = nullptr;  // null: copy path
  HostTransfer transfer;
  std::string reason;
  bool mapped = false;
  DeviceBuffer<std::byte> staging;  // copy path, allocated at the first map and reused
  PinnedBuffer<std::byte> pinned;
  ~BufferState();
};

struct ImageState {
  unsigned gl = 0;
  GlImageDesc desc;
  MapAccess access = MapAccess::ReadWrite;
  cudaGraphicsResource_t resource = nullptr;
  HostTransfer transfer;
  std::string reason;
  bool mapped = false;
  std::vector<CudaArray> staging;  // copy path: one array per layer (one for 2D and 3D)
  PinnedBuffer<std::byte> pinned;   // all layers, tightly packed
  ~ImageState();
};

// cudaGraphicsRegisterFlags for an access mode.
unsigned register_flags(MapAccess access);
// Throws UnavailableError when `transfer` lacks a function the copy path needs for `access`.
void require_transfer(const HostTransfer& transfer, MapAccess access, const std::string& what,
                      const std::string& reason);
// Logs the first time a path is taken for this kind ("buffer"/"image") in this process.
void log_path_once(const char* kind, bool zero_copy, const std::string& what, const std::string& reason);
// "cudaErrorX: text" for a failed call (also clears the runtime's last error).
std::string error_reason(cudaError_t err);
// Unregisters, logging failures; warns if still mapped.
void unregister_logged(cudaGraphicsResource_t& resource, bool mapped, const std::string& what) noexcept;

}  // namespace tomo::cuda::detail
