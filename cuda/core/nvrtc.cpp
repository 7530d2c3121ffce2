// NVRTC compilation and the process-wide cache of loaded libraries (see nvrtc.hpp).
#include "cuda/core/nvrtc.hpp"

#include <nvrtc.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/nvrtc_cache.hpp"

namespace tomo::cuda {
namespace {

void nvrtc_check(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) throw Error(str_cat("NVRTC: ", what, " failed: ", nvrtcGetErrorString(r)));
}

struct ProgramHandle {
  nvrtcProgram p = nullptr;
  ~ProgramHandle() {
    if (p) nvrtcDestroyProgram(&p);
  }
};

}  // namespace

const char* nvrtc_output_name(NvrtcOutput output) {
  static constexpr const char* kNames[] = {"cubin", "ptx", "ltoir"};  // in NvrtcOutput's order
  return kNames[static_cast<int>(output)];
}

std::vector<char> nvrtc_compile(const std::string& source, const std::string& name, NvrtcOutput output, int cc_major,
                                int cc_minor, const std::vector<std::string>& extra) {
  const bool cubin = output == NvrtcOutput::cubin;
  const std::string arch = str_cat(cubin ? "--gpu-architecture=sm_" : "--gpu-architecture=compute_", cc_major, cc_minor);
  // IEEE division and square root (musr's double path is compared with the cpu at 1e-9), no headers.
  std::vector<const char*> options = {arch.c_str(), "--std=c++17", "--fmad=true", "--device-as-default-execution-space"};
  // LTO-IR is relocatable: its functions are resolved by the linker that takes it.
  if (output == NvrtcOutput::ltoir) options.insert(options.end(), {"--relocatable-device-code=true", "-dlto"});
  for (const auto& o : extra) options.push_back(o.c_str());
  // The cache key: NVRTC's version, the output kind, every option (the target among them), the
  // name and the source.
  const std::filesystem::path cache_dir = nvrtc_cache_dir();
  std::string key;
  if (!cache_dir.empty()) {
    int major = 0, minor = 0;
    nvrtc_check(nvrtcVersion(&major, &minor), "nvrtcVersion");
    key = str_cat("nvrtc ", major, ".", minor, "\noutput ", nvrtc_output_name(output), "\n");
    for (const char* o : options) key += str_cat(o, "\n");
    key += str_cat(name, "\n", source);
    if (auto image = nvrtc_cache_load(cache_dir, key)) return std::move(*image);
  }
  ProgramHandle prog;
  nvrtc_check(nvrtcCreateProgram(&prog.p, source.c_str(), name.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
  const nvrtcResult r = nvrtcCompileProgram(prog.p, static_cast<int>(options.size()), options.data());
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(prog.p, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 1) nvrtcGetProgramLog(prog.p, log.data());
  if (r != NVRTC_SUCCESS)
    throw Error(str_cat("NVRTC could not compile ", name, " (", nvrtc_output_name(output), ", ", arch, "): ",
                        nvrtcGetErrorString(r), "\n", log));
  std::size_t size = 0;
  std::vector<char> image;
  switch (output) {
    case NvrtcOutput::cubin:
      nvrtc_check(nvrtcGetCUBINSize(prog.p, &size), "nvrtcGetCUBINSize");
      image.resize(size);
      nvrtc_check(nvrtcGetCUBIN(prog.p, image.data()), "nvrtcGetCUBIN");
      break;
    case NvrtcOutput::ptx:
      nvrtc_check(nvrtcGetPTXSize(prog.p, &size), "nvrtcGetPTXSize");
      image.resize(size);
      nvrtc_check(nvrtcGetPTX(prog.p, image.data()), "nvrtcGetPTX");
      break;
    case NvrtcOutput::ltoir:
      nvrtc_check(nvrtcGetLTOIRSize(prog.p, &size), "nvrtcGetLTOIRSize");
      image.resize(size);
      nvrtc_check(nvrtcGetLTOIR(prog.p, image.data()), "nvrtcGetLTOIR");
      break;
  }
  if (!cache_dir.empty()) nvrtc_cache_store(cache_dir, key, image);
  return image;
}

std::vector<cudaKernel_t> load_kernels(const std::string& source, const std::string& name, const std::vector<std::string>& names,
                                       const std::vector<std::string>& options) {
  static std::mutex mutex;
  static std::map<std::tuple<int, std::string, std::vector<std::string>>, cudaLibrary_t> cache;  // (device, source, options) → library
  int device = 0;
  TOMO_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard lock(mutex);
  auto key = std::make_tuple(device, source, options);
  auto it = cache.find(key);
  if (it == cache.end()) {
    int major = 0, minor = 0;
    TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    // A CUBIN for the exact device when this NVRTC knows it, else PTX for the driver to finish.
    std::vector<char> image;
    try {
      image = nvrtc_compile(source, name, NvrtcOutput::cubin, major, minor, options);
    } catch (const Error& e) {
      log_info(str_cat(name, ": no CUBIN for sm_", major, minor, " (", e.what(), "); trying PTX"));
      image = nvrtc_compile(source, name, NvrtcOutput::ptx, major, minor, options);
    }
    cudaLibrary_t lib = nullptr;
    TOMO_CUDA_CHECK(cudaLibraryLoadData(&lib, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    it = cache.emplace(std::move(key), lib).first;
  }
  std::vector<cudaKernel_t> out;
  for (const auto& n : names) {
    cudaKernel_t k = nullptr;
    TOMO_CUDA_CHECK(cudaLibraryGetKernel(&k, it->second, n.c_str()));
    out.push_back(k);
  }
  return out;
}

}  // namespace tomo::cuda
