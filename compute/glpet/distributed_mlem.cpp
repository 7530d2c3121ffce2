// Multi-device glpet ML-EM: per-rank bodies of the exact and seed modes, the α solve, and the
// registry of backends that can run on several devices (cpu ranks are host threads: the
// reference the GPU layers are tested against).
#include "compute/glpet/distributed_mlem.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/mpi_world.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"

namespace tomo::glpet {
namespace {

std::map<std::string, MultiDeviceFactory>& factories() {
  static std::map<std::string, MultiDeviceFactory> f;
  return f;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Everything the ranks share: inputs, the partition and the results they fill in.
struct Shared {
  MultiDevice& md;
  const SystemModel& sys;
  const DistributedOptions& opt;
  std::vector<float> y;
  MultiSplit split;              // lors or voxels
  std::vector<LorShare> shares;  // the LOR split's shares (empty for the voxel split)
  DistributedResult res;
  std::vector<float> estimate;
  std::mutex report_mutex;
};

SystemModel share_model(const SystemModel& sys, const LorShare& share) {
  SystemModel m = sys;
  m.scanner = share.scanner;
  return m;
}

// Rank 0 times its stages (after synchronize) into the report; the others only run them.
struct RankTimer {
  Shared& sh;
  int rank;
  Projector& op;
  void operator()(const char* stage, const std::function<void()>& f) const {
    if (rank != 0 || !sh.opt.mlem.report) return f();
    const double t0 = now_ms();
    f();
    op.synchronize();
    std::lock_guard lock(sh.report_mutex);
    sh.opt.mlem.report->add_timing(stage, now_ms() - t0);
  }
};

// The global ỹ from each rank's share: disjoint LORs, so in one process every rank writes its
// own entries; across processes each rank's vector (zero elsewhere) is summed, which is exact.
void gather_estimate(Shared& sh, int r, const LorShare& share, const std::vector<float>& mine) {
  if (!sh.md.team->process_group()) return scatter_share(share, mine, sh.estimate);
  std::vector<float> all(sh.estimate.size(), 0.0f);
  scatter_share(share, mine, all);
  sh.md.team->allreduce_sum(r, std::span<float>(all));
  if (r == sh.md.team->first_local_rank()) sh.estimate = std::move(all);
}

// Rank r's slab of the voxel split: [first, last) of the x-fastest voxel order (z-slabs).
std::array<std::size_t, 2> voxel_range(std::size_t voxels, int r, int ranks) {
  return {voxels * std::size_t(r) / std::size_t(ranks), voxels * std::size_t(r + 1) / std::size_t(ranks)};
}

// The rank's projector: its LOR share's scanner (LOR split), or every LOR restricted to its
// slab of voxels (voxel split).
std::unique_ptr<Projector> rank_projector(Shared& sh, int r) {
  if (sh.split == MultiSplit::lors) return sh.md.make_projector(r, share_model(sh.sys, sh.shares[r]));
  auto op = sh.md.make_projector(r, sh.sys);
  const auto [first, last] = voxel_range(sh.sys.voxel_count(), r, sh.md.team->size());
  if (!op->restrict_voxels(first, last - first))
    throw UnavailableError(str_cat("glpet ", op->describe(), ": this backend cannot split the voxels across devices; ",
                                   "set glpet.multi_gpu_split = \"lors\""));
  return op;
}

void exact_rank(Shared& sh, int r) {
  const bool by_voxels = sh.split == MultiSplit::voxels;
  auto op = rank_projector(sh, r);
  const RankTimer timed{sh, r, *op};
  auto by = op->make_lors(), bt = op->make_lors();
  auto bx = op->make_image(), bb = op->make_image(), bs = op->make_image();
  by->upload(by_voxels ? sh.y : gather_share(sh.shares[r], sh.y));
  timed("sensitivity", [&] {
    bs->zero();  // the voxel split writes its slab only; the sum over ranks fills the rest
    op->sensitivity(*bs);
    sh.md.collectives.allreduce_sum(r, *bs);
  });
  const MaskedStart start = mask_and_start(*bs, *bx, {}, sh.opt.mlem.sensitivity_threshold, sh.opt.mlem.outside_fov);
  // The voxel split's ỹ: each rank projects its slab into every LOR; the sum is A x.
  auto forward = [&] {
    op->forward(*bx, *bt);
    if (by_voxels) sh.md.collectives.allreduce_sum(r, *bt);
  };
  int done = 0;
  for (int it = 1; it <= sh.opt.mlem.iterations; ++it) {
    timed("forward", forward);
    timed("back_ratio", [&] {
      if (by_voxels) bb->zero();
      op->back_ratio(*by, *bt, *bb, nullptr);
    });
    timed("allreduce", [&] { sh.md.collectives.allreduce_sum(r, *bb); });
    timed("update", [&] { op->mlem_update(*bx, *bb, *bs); });
    done = it;
    // Rank 0 decides whether to go on (the viewer's stop button); every rank learns it.
    double stop = 0;
    if (r == 0 && sh.opt.mlem.on_iteration && !sh.opt.mlem.on_iteration(it, *bx)) stop = 1;
    sh.md.team->allreduce_sum(r, std::span<double>(&stop, 1));
    if (stop > 0) break;
  }
  // ỹ = A x of the final image, so the data misfit belongs to what is returned.
  forward();
  if (by_voxels) {
    if (r == sh.md.team->first_local_rank()) sh.estimate = download(*bt);  // already summed over every rank
  } else {
    gather_estimate(sh, r, sh.shares[r], download(*bt));
  }
  if (r == sh.md.team->first_local_rank()) {  // x is the same on every rank: each process keeps one
    sh.res.mlem.x = download(*bx);
    sh.res.mlem.sensitivity = start.sensitivity;
    sh.res.mlem.masked = start.masked;
    sh.res.mlem.iterations = done;
  }
}

void seed_rank(Shared& sh, int r) {
  const int G = sh.md.team->size();
  const LorShare& share = sh.shares[r];
  auto op = sh.md.make_projector(r, share_model(sh.sys, share));
  const std::vector<float> yr = gather_share(share, sh.y);
  MlemOptions o = sh.opt.mlem;
  if (r != 0) o.on_iteration = nullptr, o.report = nullptr;
  const MlemResult mine = run_mlem(*op, yr, {}, o);  // the share's own estimate x[r]
  // Every rank needs every x[g] to form ỹ_rg = A_r x[g] on its share.
  std::vector<std::vector<float>> xs(G), yt(G);
  for (int g = 0; g < G; ++g) {
    xs[g] = g == r ? mine.x : std::vector<float>(mine.x.size());
    sh.md.team->broadcast(r, std::span<float>(xs[g]), g);
  }
  auto bx = op->make_image(), bt = op->make_lors();
  for (int g = 0; g < G; ++g) {
    bx->upload(xs[g]);
    op->forward(*bx, *bt);
    yt[g] = download(*bt);
  }
  // This share's terms of B_kg = Σ_h ỹ_hg·ỹ_hk, b_k = Σ_h y_h·ỹ_hk and Σ_h y_h², summed over ranks.
  std::vector<double> sums(std::size_t(G) * G + G + 1, 0.0);
  for (std::size_t l = 0; l < yr.size(); ++l) {
    for (int k = 0; k < G; ++k) {
      for (int g = 0; g < G; ++g) sums[std::size_t(k) * G + g] += double(yt[g][l]) * yt[k][l];
      sums[std::size_t(G) * G + k] += double(yr[l]) * yt[k][l];
    }
    sums.back() += double(yr[l]) * yr[l];
  }
  sh.md.team->allreduce_sum(r, std::span<double>(sums));
  const std::vector<double> B(sums.begin(), sums.begin() + std::ptrdiff_t(G) * G);
  const std::vector<double> b(sums.begin() + std::ptrdiff_t(G) * G, sums.end() - 1);
  const std::vector<double> alpha = combination_weights(B, b);  // the same on every rank
  std::vector<float> est(yr.size(), 0.0f);
  for (int g = 0; g < G; ++g)
    for (std::size_t l = 0; l < est.size(); ++l) est[l] += float(alpha[g] * yt[g][l]);
  gather_estimate(sh, r, share, est);
  std::vector<float> sens = mine.sensitivity;  // Σ_l A_lv over all shares, for the report
  sh.md.team->allreduce_sum(r, std::span<float>(sens));
  if (r != sh.md.team->first_local_rank()) return;  // α, B, b and every x[g] are alike on every rank
  double misfit = sums.back();  // ‖y − Σ α_g ỹ_g‖² = yᵀy − 2αᵀb + αᵀBα
  for (int k = 0; k < G; ++k) {
    misfit -= 2 * alpha[k] * b[k];
    for (int g = 0; g < G; ++g) misfit += alpha[k] * alpha[g] * B[std::size_t(k) * G + g];
  }
  DistributedResult& res = sh.res;
  res.alpha = alpha;
  res.data_misfit = misfit;
  res.partial = xs;
  res.mlem.x.assign(mine.x.size(), 0.0f);
  for (int g = 0; g < G; ++g)
    for (std::size_t v = 0; v < res.mlem.x.size(); ++v) res.mlem.x[v] += float(alpha[g] * xs[g][v]);
  res.mlem.sensitivity = sens;
  res.mlem.masked = mine.masked;
  res.mlem.iterations = mine.iterations;
}

}  // namespace

BufferCollectives host_collectives(Team& team) {
  BufferCollectives c;
  c.allreduce_sum = [&team](int rank, BackendBuffer& buf) {
    std::vector<float> v = download(buf);
    team.allreduce_sum(rank, std::span<float>(v));
    buf.upload(v);
  };
  c.broadcast = [&team](int rank, BackendBuffer& buf, int root) {
    std::vector<float> v = download(buf);
    team.broadcast(rank, std::span<float>(v), root);
    buf.upload(v);
  };
  return c;
}

void register_multi_device(const std::string& backend, MultiDeviceFactory factory) {
  factories()[backend] = std::move(factory);
}

const MultiDeviceFactory* find_multi_device(const std::string& backend) {
  auto it = factories().find(backend);
  return it == factories().end() ? nullptr : &it->second;
}

DistributedResult run_distributed_mlem(MultiDevice& md, const SystemModel& sys, std::span<const float> y,
                                       const DistributedOptions& opt) {
  if (opt.mlem.iterations < 0) throw InputError(str_cat("glpet: iterations must be >= 0, got ", opt.mlem.iterations));
  if (y.size() != sys.lor_count())
    throw InputError(str_cat("glpet: ", y.size(), " measured LORs, the scanner has ", sys.lor_count()));
  std::vector<float> measured(y.begin(), y.end());
  if (ProcessGroup* g = md.team->process_group())  // before the value check: every process checks the same data
    g->broadcast(measured.data(), measured.size() * sizeof(float), 0);
  for (float v : measured)
    if (!std::isfinite(v) || v < 0) throw InputError(str_cat("glpet: measured count ", v, " is not finite and >= 0"));
  const int ranks = md.team->size();
  MultiSplit split = opt.split;
  if (opt.mode == MultiMode::seed && split == MultiSplit::voxels)
    throw InputError("glpet: glpet.multi_gpu_split = \"voxels\" needs glpet.multi_gpu = \"exact\" (the paper's scheme "
                     "splits the LORs)");
  if (split == MultiSplit::automatic)
    split = opt.mode == MultiMode::exact && sys.scanner.pairs.size() < std::size_t(ranks) ? MultiSplit::voxels
                                                                                         : MultiSplit::lors;
  if (split == MultiSplit::voxels && sys.voxel_count() < std::size_t(ranks))
    throw InputError(str_cat("glpet: ", sys.voxel_count(), " voxels cannot be split across ", ranks, " devices"));
  Shared sh{md, sys, opt, std::move(measured), split,
            split == MultiSplit::lors ? partition_lors(sys, ranks) : std::vector<LorShare>{}, {},
            std::vector<float>(sys.lor_count(), 0.0f), {}};
  sh.res.split = split;
  for (const auto& s : sh.shares) sh.res.share_nonzeros.push_back(s.nonzeros);
  if (split == MultiSplit::voxels)
    for (int r = 0; r < ranks; ++r) sh.res.voxel_ranges.push_back(voxel_range(sys.voxel_count(), r, ranks));
  md.team->run([&](int r) { opt.mode == MultiMode::exact ? exact_rank(sh, r) : seed_rank(sh, r); });
  sh.res.mlem.estimate = std::move(sh.estimate);
  if (opt.mode == MultiMode::exact) {
    double misfit = 0;
    for (std::size_t l = 0; l < sh.y.size(); ++l)
      misfit += (double(sh.y[l]) - sh.res.mlem.estimate[l]) * (double(sh.y[l]) - sh.res.mlem.estimate[l]);
    sh.res.data_misfit = misfit;
  }
  return std::move(sh.res);
}

std::vector<double> combination_weights(const std::vector<double>& B, const std::vector<double>& b) {
  const std::size_t G = b.size();
  if (B.size() != G * G || G == 0) throw Error("combination_weights: B must be G x G with G = b.size() > 0");
  const std::size_t n = G + 1;
  double trace = 0;
  for (std::size_t k = 0; k < G; ++k) trace += B[k * G + k];
  const double ridge = 1e-12 * (trace > 0 ? trace / double(G) : 1.0);
  // [B + ridge·I, 1; 1ᵀ, 0] [α; λ] = [b; 1], by Gaussian elimination with partial pivoting.
  std::vector<double> M(n * (n + 1), 0.0);
  for (std::size_t k = 0; k < G; ++k) {
    for (std::size_t g = 0; g < G; ++g) M[k * (n + 1) + g] = B[k * G + g] + (k == g ? ridge : 0.0);
    M[k * (n + 1) + G] = 1.0;
    M[k * (n + 1) + n] = b[k];
    M[G * (n + 1) + k] = 1.0;
  }
  M[G * (n + 1) + n] = 1.0;
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t piv = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::fabs(M[r * (n + 1) + c]) > std::fabs(M[piv * (n + 1) + c])) piv = r;
    if (M[piv * (n + 1) + c] == 0.0) throw Error("combination_weights: singular system");
    for (std::size_t j = 0; j <= n; ++j) std::swap(M[c * (n + 1) + j], M[piv * (n + 1) + j]);
    for (std::size_t r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = M[r * (n + 1) + c] / M[c * (n + 1) + c];
      for (std::size_t j = c; j <= n; ++j) M[r * (n + 1) + j] -= f * M[c * (n + 1) + j];
    }
  }
  std::vector<double> alpha(G);
  for (std::size_t k = 0; k < G; ++k) alpha[k] = M[k * (n + 1) + n] / M[k * (n + 1) + k];
  return alpha;
}

namespace {
// cpu ranks: host threads with host collectives, one per entry of `devices` (the indices
// only count ranks here). The reference that tests the scheme without a GPU.
const bool kRegisterCpuRanks = [] {
  register_multi_device("cpu", [](const std::string& gpus, const ProjectorOptions& options) {
    // Host threads: "N" ranks, or as many as a list names; "all" is one.
    const int n = int(parse_device_spec(gpus, -1, "").size());
    MultiDevice md;
    md.team = std::make_unique<HostTeam>(n, process_group());  // under mpirun: n threads in each process
    md.collectives = host_collectives(*md.team);
    md.make_projector = [options](int, const SystemModel& share) {
      auto op = BackendRegistry<Projector>::instance().create("cpu");
      op->configure(share, options);
      return op;
    };
    for (int r = 0; r < n; ++r) md.devices.push_back(str_cat("cpu rank ", md.team->first_local_rank() + r));
    return md;
  });
  return true;
}();
}  // namespace

}  // namespace tomo::glpet
