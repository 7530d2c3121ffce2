// strip's reference PhantomGenerator in the registry: simulate_phantom on the host's threads, the
// events the other generators are checked against.
#include <memory>
#include <string>
#include <vector>

#include "compute/core/registry.hpp"
#include "compute/strip/simulator.hpp"

namespace tomo::strip {
namespace {

class CpuPhantomGenerator final : public PhantomGenerator {
 public:
  std::vector<Event> simulate(const StripGeometry& g, const Resolution& res, const StripPhantom& phantom,
                              std::uint64_t count, std::uint64_t seed, SimulationStats* stats) override {
    return simulate_phantom(g, res, phantom, count, seed, stats);
  }
  std::string describe() const override { return "cpu (host threads, double precision)"; }
};

const BackendRegistrar<PhantomGenerator> kRegisterCpu({"cpu", kPriorityCpu, nullptr,
                                                       [] { return std::make_unique<CpuPhantomGenerator>(); }});

}  // namespace
}  // namespace tomo::strip
