// CUDA arrays (CuPy, PyTorch: anything nanobind imports through DLPack) given to the cuda
// backends: checked for device, dtype, layout and shape, each with one named exception, and
// used in place.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "python/src/arrays.hpp"

namespace tomo::py {

using OutArray = nb::ndarray<>;  // writable, any device

bool is_cuda(const AnyArray& a);
bool is_cuda(const OutArray& a);

// The float32 data of a C-contiguous CUDA array of exactly `shape` on CUDA device `device`, else
// TypeError (not a CUDA array, dtype) or ValueError (device, shape, layout) naming `name`.
const float* cuda_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape, int device);
float* cuda_output(const OutArray& a, const std::string& name, const std::vector<std::size_t>& shape, int device);

// TypeError naming `name` when `a` is a CUDA array but `backend` takes host arrays only.
void require_host(const AnyArray& a, const std::string& name, const std::string& backend);

// The float32 data of CUDA array `a` for a device-array path that only the cuda backend has:
// UnavailableError without CUDA (`what`), TypeError as require_host's when `backend` is another,
// else cuda_input's checks.
const float* cuda_backend_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape,
                                const std::string& backend, int device, const std::string& what);

// UnavailableError unless this module was built with CUDA.
void require_cuda_build(const std::string& what);
// A GPU array `name` reached an operator: UnavailableError without CUDA (`what`), TypeError
// naming `name` and `backend` when the operator's backend is not cuda.
void require_cuda_backend(const std::string& name, const std::string& backend, const std::string& what);

}  // namespace tomo::py
