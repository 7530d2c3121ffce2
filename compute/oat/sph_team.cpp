// H_sph on several cpu ranks (host threads, HostTeam): the reference of the several-GPU split
// and how CI tests it. Rank r forwards its slice of the voxels into a whole ũ and transposes its
// slice of the transducers into a whole α; the partial results are all-reduced (in rank order, so
// every rank holds the same sum). `--backend cpu --gpus N` runs it.
#include <omp.h>

#include <algorithm>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/team.hpp"
#include "compute/oat/sph_run.hpp"

namespace tomo::oat {

namespace {

using cd = std::complex<double>;

class HostSphTeam final : public SphModel {
 public:
  explicit HostSphTeam(int ranks) : team_(ranks) {}
  std::string describe() const override { return str_cat("cpu H_sph on ", team_.describe()); }

  void configure(const OatGeometry& g, const SphOptions& o) override {
    ranks_.clear();
    const int R = team_.size();
    for (int r = 0; r < R; ++r) {
      SphOptions ro = o;
      ro.share = sph_share(g.grid.count(), g.transducer_count(), r, R);
      ro.threads = std::max(1, (o.threads > 0 ? o.threads : omp_get_max_threads()) / R);
      ranks_.push_back(BackendRegistry<SphModel>::instance().create("cpu"));
      ranks_.back()->configure(g, ro);
    }
    data_.assign(R, std::vector<cd>(o.setup.data_size(g)));
    alpha_.assign(R, std::vector<double>(g.grid.count()));
  }

  void forward(std::span<const double> alpha, std::span<cd> u) override {
    check();
    team_.run([&](int r) {
      ranks_[r]->forward(alpha, data_[r]);
      team_.allreduce_sum(r, as_real(std::span<cd>(data_[r])));
    });
    std::copy(data_[0].begin(), data_[0].end(), u.begin());
  }

  void adjoint(std::span<const cd> u, std::span<double> alpha) override {
    check();
    team_.run([&](int r) {
      ranks_[r]->adjoint(u, alpha_[r]);
      team_.allreduce_sum(r, std::span<double>(alpha_[r]));
    });
    std::copy(alpha_[0].begin(), alpha_[0].end(), alpha.begin());
  }

 private:
  void check() const {
    if (ranks_.empty()) throw Error("oat cpu H_sph team: configure() was not called");
  }
  HostTeam team_;
  std::vector<std::unique_ptr<SphModel>> ranks_;
  std::vector<std::vector<cd>> data_;
  std::vector<std::vector<double>> alpha_;
};

const bool kRegisterCpuSphTeam = [] {
  register_sph_multi("cpu", [](const std::string& gpus) -> std::unique_ptr<SphModel> {
    const std::vector<int> ranks = parse_device_spec(gpus, -1, "host threads");
    return std::make_unique<HostSphTeam>(int(ranks.size()));
  });
  return true;
}();

}  // namespace

}  // namespace tomo::oat
