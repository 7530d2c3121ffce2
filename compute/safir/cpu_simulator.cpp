// safir's reference EventGenerator in the registry: simulate() on the host's threads, the list
// mode the other generators are checked against.
#include <memory>
#include <string>

#include "compute/core/registry.hpp"
#include "compute/safir/simulator.hpp"

namespace tomo::safir {
namespace {

class CpuEventGenerator final : public EventGenerator {
 public:
  ListMode simulate(const Scanner& scanner, const Phantom& phantom, const SimulationOptions& o,
                    SimulationStats* stats) override {
    return safir::simulate(scanner, phantom, o, stats);
  }
  std::string describe() const override { return "cpu (host threads, double precision)"; }
};

const BackendRegistrar<EventGenerator> kRegisterCpu({"cpu", kPriorityCpu, nullptr,
                                                     [] { return std::make_unique<CpuEventGenerator>(); }});

}  // namespace
}  // namespace tomo::safir
