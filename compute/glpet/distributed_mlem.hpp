// glpet ML-EM on several devices ([Toth2010] §V), written once against Projector and Team:
//  - exact: every rank forward- and back-projects its LOR share; the back-projected ratios
//    (and once the sensitivity) are summed over the ranks before each update, which is
//    single-device ML-EM up to the order of float sums;
//  - seed: the paper's scheme: independent ML-EM per share for all iterations, then the
//    estimates x[g] combined as Σ α_g x[g] with the α that minimise ‖y − A x‖² under Σα = 1.
#pragma once
#include <array>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compute/core/enum_name.hpp"
#include "compute/core/team.hpp"
#include "compute/glpet/mlem.hpp"
#include "compute/glpet/partition.hpp"

namespace tomo::glpet {

enum class MultiMode { exact, seed };
inline constexpr std::array<EnumName<MultiMode>, 2> kMultiModeNames{{{"exact", MultiMode::exact}, {"seed", MultiMode::seed}}};
// What the exact mode splits across the ranks (glpet.multi_gpu_split): the LORs (module pairs,
// or row blocks of them: what the seed mode always uses), or the voxels (every rank holds all
// LORs and one slab of voxels; ỹ and the back-projection are summed over the ranks each
// iteration). auto: voxels when the scanner has fewer module pairs than ranks, where cutting
// pairs into row blocks saves no work (docs/multigpu.md), else the LORs.
enum class MultiSplit { automatic, lors, voxels };
inline constexpr std::array<EnumName<MultiSplit>, 3> kMultiSplitNames{
    {{"auto", MultiSplit::automatic}, {"lors", MultiSplit::lors}, {"voxels", MultiSplit::voxels}}};

// Collectives on a backend's buffers, called by every rank with its own buffer. The host
// form downloads, reduces through the team and uploads; the cuda layer supplies NCCL ones.
struct BufferCollectives {
  std::function<void(int rank, BackendBuffer&)> allreduce_sum;
  std::function<void(int rank, BackendBuffer&, int root)> broadcast;
};
BufferCollectives host_collectives(Team& team);

// What a backend supplies to run on several devices.
struct MultiDevice {
  std::unique_ptr<Team> team;
  BufferCollectives collectives;
  // Makes and configures rank r's projector for its share's model, on the rank's device;
  // called on the rank's own thread, which then makes every call of that projector.
  std::function<std::unique_ptr<Projector>(int rank, const SystemModel& share)> make_projector;
  std::vector<std::string> devices;  // what each rank of this process runs on, for the report
};
// gpus: "all", a count "N" or a list "0,2" of device indices (the --gpus flag). Throws
// UnavailableError (exit 3) naming what is there when more are asked than exist, InputError
// for text that is none of those.
using MultiDeviceFactory = std::function<MultiDevice(const std::string& gpus, const ProjectorOptions&)>;
void register_multi_device(const std::string& backend, MultiDeviceFactory factory);
// nullptr when the backend cannot run on several devices.
const MultiDeviceFactory* find_multi_device(const std::string& backend);

struct DistributedOptions {
  MultiMode mode = MultiMode::exact;
  MultiSplit split = MultiSplit::automatic;  // exact mode only; seed mode splits the LORs
  MlemOptions mlem;  // iterations, threshold, on_iteration (called on rank 0), report (rank 0's timings)
};

struct DistributedResult {
  MlemResult mlem;                       // x, sensitivity (exact: all LORs), estimate ỹ = A x (global)
  std::vector<double> alpha;             // seed: the combination weights (Σ = 1); exact: empty
  MultiSplit split = MultiSplit::lors;   // what was split (never automatic)
  std::vector<double> share_nonzeros;    // per rank, the balancing weights (LOR split)
  std::vector<std::array<std::size_t, 2>> voxel_ranges;  // per rank, [first, last) (voxel split)
  std::vector<std::vector<float>> partial;  // seed: each rank's own estimate x[g]
  double data_misfit = 0;                // ‖y − A x‖² of the final image
};

// Every process of a team that spans several (MPI) gets the whole result; the measured y of
// process 0 is the one reconstructed (broadcast first, so every process works on the same data).
DistributedResult run_distributed_mlem(MultiDevice& md, const SystemModel& sys, std::span<const float> y,
                                       const DistributedOptions& opt);

// The α of [Toth2010] §V: minimise Σ_h ‖y_h − Σ_g α_g ỹ_hg‖² subject to Σ α_g = 1, i.e. the KKT system
// [B 1; 1ᵀ 0][α; λ] = [b; 1] with B_kg = Σ_h ỹ_hg·ỹ_hk, b_k = Σ_h y_h·ỹ_hk (B row-major G×G).
// A singular system (two estimates alike) gives the least-squares weights of the distinct ones
// through a small ridge (1e-12 of the trace), documented in docs/multigpu.md.
std::vector<double> combination_weights(const std::vector<double>& B, const std::vector<double>& b);

}  // namespace tomo::glpet
