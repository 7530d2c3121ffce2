// glpet's reference McGenerator in the registry: the share's histories on this process's cores,
// the histogram the other generators are checked against.
#include <memory>
#include <string>

#include "compute/core/registry.hpp"
#include "compute/glpet/monte_carlo.hpp"

namespace tomo::glpet {
namespace {

class CpuMcGenerator final : public McGenerator {
 public:
  McTally tally(const McTables& t, const McOptions& options, const std::string&, const ProcessShare& share) override {
    return tally_on_host(t, options, share);
  }
  std::string describe() const override { return "cpu (host threads, double precision)"; }
};

const BackendRegistrar<McGenerator> kRegisterCpu({"cpu", kPriorityCpu, nullptr,
                                                  [] { return std::make_unique<CpuMcGenerator>(); }});

}  // namespace
}  // namespace tomo::glpet
