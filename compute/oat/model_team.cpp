// H_int over transducer ranges on several ranks (compute/oat/model_team.hpp), and the cpu's ranks:
// host threads sharing the cores, CI's test of the split.
#include "compute/oat/model_team.hpp"

#include <omp.h>

#include <algorithm>
#include <map>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/team.hpp"

namespace tomo::oat {
namespace {

std::map<std::string, ModelMultiFactory>& factories() {
  static std::map<std::string, ModelMultiFactory> m;
  return m;
}

class TransducerTeam final : public Model {
 public:
  explicit TransducerTeam(ModelRanks r) : r_(std::move(r)), team_(r_.ranks) {}
  ~TransducerTeam() override {  // each rank's buffers are freed where they live (its device)
    for (int r = 0; r < int(ranks_.size()); ++r) {
      try {
        r_.enter(r);
      } catch (...) {
      }
      ranks_[r].reset();
    }
  }

  std::string describe() const override {
    return str_cat("H_int over ", r_.ranks, " transducer ranges on ", r_.describe);
  }

  std::vector<std::string> devices() const {
    std::vector<std::string> out;
    for (std::size_t r = 0; r < ranks_.size(); ++r)
      out.push_back(str_cat("rank ", r, " (transducers ", shares_[r].begin, "..", shares_[r].end - 1, "): ",
                            ranks_[r] ? ranks_[r]->describe() : std::string("not configured")));
    return out;
  }

  void configure(const OatGeometry& g, const ModelOptions& o) override {
    g.validate("oat model ranks");
    const int R = r_.ranks;
    shares_.clear();
    for (int r = 0; r < R; ++r) shares_.push_back(transducer_share(g, r, R));
    ranks_.clear();
    ranks_.resize(R);
    ModelOptions ro = o;  // cpu ranks share the cores; GPU backends ignore threads
    ro.threads = std::max(1, (o.threads > 0 ? o.threads : omp_get_max_threads()) / R);
    samples_ = g.time.samples;
    voxels_ = g.grid.count();
    data_ = g.data_size();
    team_.run([&](int r) {
      r_.enter(r);
      ranks_[r] = r_.make(r);
      ranks_[r]->configure(share_geometry(g, shares_[r]), ro);
    });
    partial_.assign(R, std::vector<double>(voxels_));
  }

  void forward(std::span<const double> alpha, std::span<double> u) override {
    check(u.size(), alpha.size());
    team_.run([&](int r) {
      r_.enter(r);
      ranks_[r]->forward(alpha, slice(u, r));
    });
  }

  void adjoint(std::span<const double> u, std::span<double> alpha) override {
    check(u.size(), alpha.size());
    team_.run([&](int r) {
      r_.enter(r);
      ranks_[r]->adjoint(slice(u, r), partial_[r]);
    });
    // The partial images summed in rank order, whichever rank finished first.
    std::copy(partial_[0].begin(), partial_[0].end(), alpha.begin());
    for (std::size_t r = 1; r < partial_.size(); ++r)
      for (std::size_t i = 0; i < alpha.size(); ++i) alpha[i] += partial_[r][i];
  }

  void synchronize() override {
    team_.run([&](int r) {
      r_.enter(r);
      ranks_[r]->synchronize();
    });
  }

 private:
  template <class T>
  std::span<T> slice(std::span<T> u, int r) const {
    const std::size_t K = static_cast<std::size_t>(samples_);
    return u.subspan(static_cast<std::size_t>(shares_[r].begin) * K, static_cast<std::size_t>(shares_[r].count()) * K);
  }
  void check(std::size_t data, std::size_t voxels) const {
    if (ranks_.empty()) throw Error("oat model ranks: configure() was not called");
    if (data != data_ || voxels != voxels_)
      throw Error(str_cat("oat model ranks: ", data, " samples and ", voxels, " voxels, expected ", data_, " and ",
                          voxels_));
  }

  ModelRanks r_;
  HostTeam team_;
  std::vector<TransducerShare> shares_;
  std::vector<std::unique_ptr<Model>> ranks_;
  std::vector<std::vector<double>> partial_;
  int samples_ = 0;
  std::size_t voxels_ = 0, data_ = 0;
};

// cpu ranks: host threads, each with its share of the OpenMP threads (configure divides them).
const bool kRegisterCpu = [] {
  register_model_multi("cpu", [](const std::string& gpus) {
    const int ranks = int(parse_device_spec(gpus, -1, "host threads").size());
    return ModelRanks{.ranks = ranks,
                      .describe = str_cat(ranks, " host threads"),
                      .make = [](int) { return BackendRegistry<Model>::instance().create("cpu"); }};
  });
  return true;
}();

}  // namespace

TransducerShare transducer_share(const OatGeometry& g, int rank, int ranks) {
  if (ranks < 1 || rank < 0 || rank >= ranks) throw Error(str_cat("oat model ranks: rank ", rank, " of ", ranks));
  TransducerShare s;
  if (g.rings > 0 && g.views > 0 && std::int64_t(g.rings) * g.views == g.transducer_count()) {
    if (ranks > g.rings)
      throw InputError(str_cat("--gpus: ", ranks, " ranks for ", g.rings,
                               " rings: PLS with H_int gives each rank whole rings (at most ", g.rings, " ranks)"));
    s.ring_begin = int(std::int64_t(g.rings) * rank / ranks);
    s.ring_end = int(std::int64_t(g.rings) * (rank + 1) / ranks);
    s.begin = s.ring_begin * g.views;
    s.end = s.ring_end * g.views;
    return s;
  }
  const int Q = g.transducer_count();
  if (ranks > Q)
    throw InputError(str_cat("--gpus: ", ranks, " ranks for ", Q,
                             " transducers: PLS with H_int gives each rank at least one (at most ", Q, " ranks)"));
  s.begin = int(std::int64_t(Q) * rank / ranks);
  s.end = int(std::int64_t(Q) * (rank + 1) / ranks);
  return s;
}

OatGeometry share_geometry(const OatGeometry& g, const TransducerShare& s) {
  OatGeometry out = g;
  out.transducers.assign(g.transducers.begin() + s.begin, g.transducers.begin() + s.end);
  out.surface_mm2.assign(g.surface_mm2.begin() + s.begin, g.surface_mm2.begin() + s.end);
  out.rings = s.ring_end - s.ring_begin;
  out.views = out.rings > 0 ? g.views : 0;
  return out;
}

void register_model_multi(const std::string& backend, ModelMultiFactory factory) {
  factories()[backend] = std::move(factory);
}

bool has_model_multi(const std::string& backend) { return factories().count(backend) > 0; }

int model_rank_count(const std::string& backend, const std::string& gpus) {
  const auto it = factories().find(backend);
  if (it == factories().end()) throw UnavailableError("--gpus: the oat H_int backend '" + backend + "' runs on one device");
  return it->second(gpus).ranks;
}

std::unique_ptr<Model> make_model(const std::string& backend, const std::string& gpus, const OatGeometry& g,
                                  const ModelOptions& o) {
  std::unique_ptr<Model> m;
  if (gpus.empty()) {
    m = BackendRegistry<Model>::instance().create(backend);
  } else {
    const auto it = factories().find(backend);
    if (it == factories().end()) throw UnavailableError("--gpus: the oat H_int backend '" + backend + "' runs on one device");
    m = std::make_unique<TransducerTeam>(it->second(gpus));
  }
  m->configure(g, o);
  return m;
}

std::vector<std::string> model_devices(const Model& m) {
  if (const auto* t = dynamic_cast<const TransducerTeam*>(&m)) {
    std::vector<std::string> out{t->describe()};
    const auto ranks = t->devices();
    out.insert(out.end(), ranks.begin(), ranks.end());
    return out;
  }
  return {m.describe()};
}

}  // namespace tomo::oat
