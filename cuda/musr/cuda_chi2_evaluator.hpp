// The cuda musr::Chi2Evaluator's kernel designs made selectable for bench_musr (plain C++, so
// bench/ needs no CUDA headers); the registry's "cuda" is the default variant below.
#pragma once
#include <memory>
#include <span>
#include <string>

#include "compute/musr/codegen_cuda.hpp"
#include "compute/musr/fit_problem.hpp"

namespace tomo::musr {

struct CudaEvaluatorVariant {
  CudaKernelVersion version = CudaKernelVersion::v2;
  bool fast_math = true;  // v2 float: __expf/__sinf/__cosf/__fdividef, denormals flushed
  // v2: wait for a call by polling the sequence number the kernel stores in mapped host memory
  // (else, and where the device cannot map host memory, a stream synchronize).
  bool poll = true;
  // v2: 16-bit counts where exact (codegen_cuda.hpp, CudaCodegenOptions::counts16).
  bool counts16 = false;
  std::string label() const;  // e.g. "v2 fast poll", "v2 fast poll u16"
};

// An unconfigured cuda evaluator of `variant` (configure() and upload() as any Chi2Evaluator).
std::unique_ptr<Chi2Evaluator> make_cuda_chi2_evaluator(const CudaEvaluatorVariant& variant);

// Device time of one evaluation's kernel in µs: `launches` launches back to back between two
// CUDA events, no host wait in between. `ev` must be a cuda evaluator with data uploaded.
double cuda_kernel_us(Chi2Evaluator& ev, std::span<const double> params, bool gradient, int launches);

}  // namespace tomo::musr
