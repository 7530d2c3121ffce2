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
  // v2: exp/cos/sin of polynomials in t stepped within a Pack (CudaCodegenOptions::step).
  bool step = false;
  // v2: a resident grid (cuda/musr/resident_grid.hpp) instead of a launch per call; where the
  // device cannot run it, a launch per call as above (describe() says why).
  CudaResident resident = CudaResident::none;
  double idle_exit_s = 1.0;  // the resident grid ends after this long without a call
  // v2: round four's levers on the fixed cost of a call (codegen_cuda.hpp, CudaLean).
  CudaLean lean{};
  // Polled value calls (no gradient) wait for the value itself: the host puts a signalling NaN
  // in the mapped result before the launch and spins until the kernel's 8-byte store replaces
  // it, so the kernel writes no sequence number and needs no system-scope fence (gradient calls
  // keep the sequence number, which orders their 1 + N results). Label " vflag".
  bool value_flag = false;
  // e.g. "v2 fast poll", "v2 fast poll u16", "v2 fast resident step", "v2 fast poll step head packs tail vflag"
  std::string label() const;
};
// The registry's "cuda" (docs/musr.md, Performance, round four): a launch per call, polled on
// the value itself, stepped exp/cos in Packs of 8 bins, with every CudaLean lever. Measured on the
// H200 at 16 × 426 601 bins: 17.3 µs a float call (12.3 µs kernel), 18.4 µs against round three's
// v2 fast poll step at 22.6 µs when the two alternate in one run, the fastest design. The resident
// grid stays slower (23.4 µs: polling mapped host memory from the GPU costs more than a launch)
// and holds the SMs between calls, so it is not the default.
inline const CudaEvaluatorVariant kCudaDefaultVariant{
    CudaKernelVersion::v2, true, true, false, true, CudaResident::none, 1.0, CudaLean{true, true, true, true}, true};

// An unconfigured cuda evaluator of `variant` (configure() and upload() as any Chi2Evaluator).
std::unique_ptr<Chi2Evaluator> make_cuda_chi2_evaluator(const CudaEvaluatorVariant& variant);

// Device time of one evaluation's kernel in µs: `launches` launches back to back between two
// CUDA events, no host wait in between. `ev` must be a cuda evaluator with data uploaded.
// Resident designs: the device time of a call (command seen → result published, by the
// device's clock), averaged over `launches` calls.
double cuda_kernel_us(Chi2Evaluator& ev, std::span<const double> params, bool gradient, int launches);

// The resident grid of a cuda evaluator, for tests and the bench: whether it is in use, how often
// it was launched, whether it is on the device now; stop ends it (the next call relaunches).
struct CudaResidentState {
  bool resident = false;
  int launches = 0;
  bool running = false;
};
CudaResidentState cuda_resident_state(Chi2Evaluator& ev);
void cuda_resident_stop(Chi2Evaluator& ev);

}  // namespace tomo::musr
