// The `cpu` backend of the safir operator: eq. (12) ray tracing in double precision, OpenMP over
// events with one back-projection image per thread summed at the end (no atomics).
#include <omp.h>

#include <algorithm>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/safir/analysis.hpp"
#include "compute/safir/labels.hpp"
#include "compute/safir/projector.hpp"

namespace tomo::safir {

namespace {

class CpuOperator final : public ListModeOperator {
 public:
  std::string describe() const override { return str_cat("cpu: ", threads(), " OpenMP threads, double"); }
  void synchronize() override {}

  void configure(const Scanner& sc, const ImageBox& box, const ProjectorOptions& o) override {
    scanner_ = sc;
    box_ = box;
    opt_ = o;
    g_ = box.params<double>();
    pos_ = sc.positions();
    events_.clear();
    sorted_ = {};
    f_.assign(box.count(), 0.0);
    s_.assign(box.count(), 1.0);
    randoms_ = 0;
    configured_ = true;
  }
  std::uint32_t crystal_count() const override {
    if (!configured_) throw Error("safir cpu: no scanner yet: configure() the operator first");
    return scanner_.crystal_count();
  }

  void set_events(std::span<const Event> events) override {
    for (std::size_t i = 0; i < events.size(); ++i)
      if (events[i].a >= pos_.size() || events[i].b >= pos_.size())
        throw InputError(str_cat("safir: event ", i, " names crystal ", std::max(events[i].a, events[i].b),
                                 " but the scanner has ", pos_.size()));
    events_.assign(events.begin(), events.end());
    set_window(0, events_.size());
  }

  void set_window(std::size_t first, std::size_t count) override {
    if (first > events_.size() || count > events_.size() - first)
      throw Error(str_cat("safir cpu: window [", first, ", +", count, ") beyond ", events_.size(), " events"));
    first_ = first;
    count_ = count;
    const std::span<const Event> w(events_.data() + first, count);
    sorted_ = sort_by_label(w, label_events(w, scanner_, box_));
  }

  std::array<std::size_t, 4> label_counts() const override {
    const auto& o = sorted_.offsets;
    return {count_ - o[4], o[2] - o[1], o[3] - o[2], o[4] - o[3]};
  }

  void set_image(std::span<const double> f) override { f_ = checked(f, "image"); }
  std::vector<double> image() const override { return f_; }
  void set_sensitivity(std::span<const double> s) override { s_ = checked(s, "sensitivity"); }
  void set_randoms_per_lor(double n) override { randoms_ = n; }

  std::vector<double> forward() override {
    std::vector<double> y(count_, 0.0);
    const std::int64_t n = static_cast<std::int64_t>(sorted_.events.size());
#pragma omp parallel for num_threads(threads()) schedule(dynamic, 1024)
    for (std::int64_t l = 0; l < n; ++l) y[sorted_.order[l]] = project(l);
    return y;
  }

  std::vector<double> back(std::span<const double> v) override {
    if (!v.empty() && v.size() != count_)
      throw Error(str_cat("safir cpu: back-projection of ", v.size(), " values over a window of ", count_));
    return accumulate([&](std::int64_t l) { return v.empty() ? 1.0 : v[sorted_.order[l]]; });
  }

  void iterate() override {
    const std::vector<double> c = accumulate([&](std::int64_t l) {
      const double y = project(l);
      return y > 0 ? 1.0 / y : 0.0;
    });
    for (std::size_t j = 0; j < f_.size(); ++j) f_[j] = s_[j] > 0 ? f_[j] * c[j] / s_[j] : 0.0;  // eq. (10)
  }

  SphereSums sphere_sums(double r_in, double r_out) override {
    return sphere_sums_cpu(f_, box_.n, box_.voxel_mm, r_in, r_out, threads());
  }

 private:
  int threads() const { return opt_.threads > 0 ? opt_.threads : omp_get_max_threads(); }

  std::vector<double> checked(std::span<const double> v, const char* what) const {
    if (v.size() != box_.count()) throw Error(str_cat("safir cpu: ", what, " of ", v.size(), " voxels, box has ", box_.count()));
    return {v.begin(), v.end()};
  }

  const double* end_a(std::int64_t l) const { return pos_[sorted_.events[l].a].data(); }
  const double* end_b(std::int64_t l) const { return pos_[sorted_.events[l].b].data(); }
  int label(std::int64_t l) const {
    return static_cast<int>(std::upper_bound(sorted_.offsets.begin() + 2, sorted_.offsets.end(), std::size_t(l)) -
                            sorted_.offsets.begin()) - 1;
  }

  // ȳ_l of eq. (9) for sorted event l.
  double project(std::int64_t l) const {
    double y = randoms_;
    walk_line(end_a(l), end_b(l), label(l), g_, [&](int j, double a) { y += a * f_[j]; });
    return y;
  }

  // Σ_l a_lj value(l), one image per thread.
  template <class V>
  std::vector<double> accumulate(V&& value) {
    const int nt = threads();
    const std::size_t nj = f_.size();
    std::vector<std::vector<double>> part(nt);
    const std::int64_t n = static_cast<std::int64_t>(sorted_.events.size());
#pragma omp parallel num_threads(nt)
    {
      std::vector<double>& img = part[omp_get_thread_num()];
      img.assign(nj, 0.0);
#pragma omp for schedule(dynamic, 1024)
      for (std::int64_t l = 0; l < n; ++l) {
        const double v = value(l);
        if (v != 0) walk_line(end_a(l), end_b(l), label(l), g_, [&](int j, double a) { img[j] += a * v; });
      }
    }
    std::vector<double> out(nj, 0.0);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (std::int64_t j = 0; j < static_cast<std::int64_t>(nj); ++j)
      for (int t = 0; t < nt; ++t) out[j] += part[t][j];
    return out;
  }

  bool configured_ = false;
  Scanner scanner_;
  ImageBox box_;
  ProjectorOptions opt_;
  BoxParams<double> g_{};
  std::vector<std::array<double, 3>> pos_;
  std::vector<Event> events_;
  std::size_t first_ = 0, count_ = 0;
  SortedEvents sorted_;
  std::vector<double> f_, s_;
  double randoms_ = 0;
};

const BackendRegistrar<ListModeOperator> kRegisterCpu({"cpu", kPriorityCpu, nullptr,
                                                       [] { return std::make_unique<CpuOperator>(); }});

}  // namespace

}  // namespace tomo::safir
