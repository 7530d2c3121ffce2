// Run-time compilation of CUDA source with NVRTC (cached on disk, nvrtc_cache.hpp), and loading
// a compiled image through the runtime's library API (cudaLibraryLoadData: no driver-API link),
// once per source text and device.
#pragma once
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace tomo::cuda {

// What NVRTC hands back: a CUBIN for the exact device (sm_XY), PTX for the driver to finish
// (compute_XY), or LTO-IR (compute_XY, relocatable) for a link-time-optimising linker such as
// nvJitLink, which cuFFT's JIT callbacks take.
enum class NvrtcOutput { cubin, ptx, ltoir };
const char* nvrtc_output_name(NvrtcOutput output);  // "cubin", "ptx", "ltoir"

// Compiles `source` (named `name` in messages) to `output` for compute capability major.minor,
// with `options` added to the defaults (C++17, fused multiply-add, functions without an
// execution space are device functions; LTO-IR adds -rdc=true -dlto). Needs no device. The image
// is taken from and kept in the on-disk cache of nvrtc_cache.hpp when it is enabled (the output
// kind, every option, the name, the source and NVRTC's version make its key). Throws tomo::Error
// with NVRTC's log on failure.
std::vector<char> nvrtc_compile(const std::string& source, const std::string& name, NvrtcOutput output, int cc_major,
                                int cc_minor, const std::vector<std::string>& options = {});

// The kernels `names` of `source`, compiled for the current device and loaded once per process
// (later calls with the same source and options return the cached handles; the library stays loaded).
std::vector<cudaKernel_t> load_kernels(const std::string& source, const std::string& name, const std::vector<std::string>& names,
                                       const std::vector<std::string>& options = {});

}  // namespace tomo::cuda
