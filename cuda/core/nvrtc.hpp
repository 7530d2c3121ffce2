// Run-time compilation of generated CUDA source with NVRTC and loading it through the runtime's
// library API (cudaLibraryLoadData: no driver-API link), cached per source text and device.
#pragma once
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace tomo::cuda {

// Compiles `source` (named `name` in messages) for compute capability major.minor: a CUBIN
// when `cubin`, else PTX, with `options` added to the defaults (e.g. "--ftz=true"). Needs no
// device. The image is taken from and kept in the on-disk cache of nvrtc_cache.hpp when it is
// enabled. Throws tomo::Error with NVRTC's log on failure.
std::vector<char> nvrtc_compile(const std::string& source, const std::string& name, int cc_major, int cc_minor, bool cubin,
                                const std::vector<std::string>& options = {});

// The kernels `names` of `source`, compiled for the current device and loaded once per process
// (later calls with the same source and options return the cached handles; the library stays loaded).
std::vector<cudaKernel_t> load_kernels(const std::string& source, const std::string& name, const std::vector<std::string>& names,
                                       const std::vector<std::string>& options = {});

}  // namespace tomo::cuda
