// The oat FBP over z-slabs on several ranks (compute/oat/fbp_slabs.hpp), and the cpu's ranks:
// host threads sharing the cores, CI's test of the split.
#include "compute/oat/fbp_slabs.hpp"

#include <omp.h>

#include <algorithm>
#include <map>
#include <thread>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/team.hpp"

namespace tomo::oat {
namespace {

std::map<std::string, FbpMultiFactory>& factories() {
  static std::map<std::string, FbpMultiFactory> m;
  return m;
}

class SlabFbp final : public Fbp {
 public:
  explicit SlabFbp(FbpRanks r) : r_(std::move(r)) {}

  std::string describe() const override {
    std::string s = "FBP in " + std::to_string(r_.ranks) + " z-slabs on " + r_.describe;
    if (!ranks_.empty() && ranks_[0]) s += " (rank 0: " + ranks_[0]->describe() + ")";
    return s;
  }

  void configure(const OatGeometry& g, const FbpOptions& o) override {
    g.validate("oat fbp");
    ranks_.clear();
    ranks_.resize(r_.ranks);
    slabs_.clear();
    for (int r = 0; r < r_.ranks; ++r) slabs_.push_back(z_slab(g.grid.dims[2], r, r_.ranks));
    voxels_ = g.grid.count();
    plane_ = std::size_t(g.grid.dims[0]) * g.grid.dims[1];
    data_ = g.data_size();
    each([&](int r) {
      ranks_[r] = r_.make(r);
      ranks_[r]->configure(slab_geometry(g, slabs_[r]), o);
    });
  }

  void reconstruct(std::span<const double> pressure, std::span<double> image) override {
    if (ranks_.empty()) throw Error("oat fbp slabs: configure() was not called");
    if (pressure.size() != data_ || image.size() != voxels_)
      throw Error(str_cat("oat fbp slabs: ", pressure.size(), " samples and ", image.size(), " voxels, expected ", data_,
                          " and ", voxels_));
    each([&](int r) {
      const ZSlab s = slabs_[r];
      ranks_[r]->reconstruct(pressure, image.subspan(std::size_t(s.z0) * plane_, std::size_t(s.nz) * plane_));
      ranks_[r]->synchronize();
    });
  }

 private:
  // f on every rank that holds planes, each on its own thread; the first failure is rethrown.
  void each(const std::function<void(int)>& f) {
    std::vector<std::exception_ptr> failed(r_.ranks);
    std::vector<std::jthread> threads;
    for (int r = 0; r < r_.ranks; ++r)
      if (slabs_[r].nz > 0)
        threads.emplace_back([&, r] {
          try {
            r_.enter(r);
            f(r);
          } catch (...) {
            failed[r] = std::current_exception();
          }
        });
    threads.clear();
    for (auto& e : failed)
      if (e) std::rethrow_exception(e);
  }

  FbpRanks r_;
  std::vector<std::unique_ptr<Fbp>> ranks_;
  std::vector<ZSlab> slabs_;
  std::size_t voxels_ = 0, plane_ = 0, data_ = 0;
};

// cpu ranks: host threads, each with its share of the OpenMP threads.
const bool kRegisterCpu = [] {
  register_fbp_multi("cpu", [](const std::string& gpus) {
    const int ranks = int(parse_device_spec(gpus, -1, "host threads").size());
    return FbpRanks{.ranks = ranks,
                    .describe = str_cat(ranks, " host threads"),
                    .make = [](int) { return BackendRegistry<Fbp>::instance().create("cpu"); },
                    .enter = [ranks](int) { omp_set_num_threads(std::max(1, omp_get_num_procs() / ranks)); }};
  });
  return true;
}();

}  // namespace

ZSlab z_slab(int planes, int rank, int ranks) {
  const int z0 = int(std::int64_t(planes) * rank / ranks), z1 = int(std::int64_t(planes) * (rank + 1) / ranks);
  return {z0, z1 - z0};
}

OatGeometry slab_geometry(const OatGeometry& g, ZSlab s) {
  OatGeometry out = g;
  out.support_radius_mm = g.support_mm();
  out.grid.dims[2] = s.nz;
  out.grid.origin_mm[2] = g.grid.origin_mm[2] + s.z0 * g.grid.voxel_mm[2];
  return out;
}

std::unique_ptr<Fbp> make_slab_fbp(FbpRanks ranks) { return std::make_unique<SlabFbp>(std::move(ranks)); }

void register_fbp_multi(const std::string& backend, FbpMultiFactory factory) { factories()[backend] = std::move(factory); }

std::unique_ptr<Fbp> make_fbp(const std::string& backend, const std::string& gpus) {
  if (gpus.empty()) return BackendRegistry<Fbp>::instance().create(backend);
  const auto it = factories().find(backend);
  if (it == factories().end()) throw UnavailableError("--gpus: the oat FBP backend '" + backend + "' runs on one device");
  return make_slab_fbp(it->second(gpus));
}

}  // namespace tomo::oat
