// `cpu` ProjectionFilter: FdkFilter (FFTW, double, OpenMP over rows), the reference; and the
// filter-backend resolution shared by the runner and the bench.
#include <memory>
#include <optional>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/fdk/projection_filter.hpp"

namespace tomo::fdk {
namespace {

class CpuFilter final : public ProjectionFilter {
 public:
  void setup(const CArmGeometry& g, const FilterOptions& options) override { filter_.emplace(g, options); }
  void apply(int n0, int count, const float* raw, float* out) override {
    if (!filter_) throw Error("fdk cpu filter: apply() before setup()");
    const CArmGeometry& g = filter_->geometry();
    if (n0 < 0 || count < 0 || n0 + count > g.projections)
      throw Error(str_cat("fdk cpu filter: projections [", n0, ", ", n0 + count, ") outside 0..", g.projections));
    const std::size_t image = static_cast<std::size_t>(g.sx) * g.sy;
    // FdkFilter::apply reads a row into its own buffer before writing it: in place is safe.
    for (int b = 0; b < count; ++b) filter_->apply(n0 + b, raw + b * image, out + b * image);
  }
  void synchronize() override {}
  std::string describe() const override { return "cpu (FFTW, double, OpenMP over rows)"; }

 private:
  std::optional<FdkFilter> filter_;
};

const BackendRegistrar<ProjectionFilter> kRegisterCpu({"cpu", kPriorityCpu, nullptr,
                                                  [] { return std::make_unique<CpuFilter>(); }});

}  // namespace

std::string resolve_filter_backend(const std::string& asked, const std::string& backproject_backend) {
  auto& reg = BackendRegistry<ProjectionFilter>::instance();
  if (asked != "auto") return reg.resolve(asked);
  for (const auto& n : reg.names())
    if (n == backproject_backend && reg.available(n).ok) return n;
  return "cpu";
}

}  // namespace tomo::fdk
