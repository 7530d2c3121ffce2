// CUDA source of the resident (persistent) musr kernel, `musr_persist` (codegen_cuda.hpp), around
// the value and gradient passes that codegen_cuda.cpp generates as device functions.
#pragma once
#include <string>

#include "compute/musr/codegen_cuda.hpp"

namespace tomo::musr {

// The kernel's text: it calls musr_pass_value / musr_pass_gradient(const Args&, <common_params>)
// (defined before it in the same source); poll_all: every block polls the host (else block 0).
std::string cuda_resident_kernel(const CudaSource& src, bool poll_all, const std::string& common_params);

}  // namespace tomo::musr
