// The `cuda` McGenerator of glpet's Monte-Carlo (glpet.mc.device): the share's histories on the
// devices of --gpus (monte_carlo.cu), the same histories as the cpu generator's.
#include <memory>
#include <string>

#include "compute/core/registry.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "cuda/core/device.hpp"
#include "cuda/glpet/monte_carlo_kernels.hpp"

namespace tomo::glpet {
namespace {

class CudaMcGenerator final : public McGenerator {
 public:
  McTally tally(const McTables& t, const McOptions& options, const std::string& gpus,
                const ProcessShare& share) override {
    return cuda_impl::tally_on_devices(t, options, gpus, share);
  }
  std::string describe() const override { return "cuda (one thread per history, double precision)"; }
};

const BackendRegistrar<McGenerator> kRegisterCuda({"cuda", kPriorityCuda, [] { return cuda::cuda_availability(); },
                                                   [] { return std::make_unique<CudaMcGenerator>(); }});

}  // namespace
}  // namespace tomo::glpet
