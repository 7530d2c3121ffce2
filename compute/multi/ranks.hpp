// The ranks of a list-mode problem (safir, strip) on several devices (docs/multigpu.md): the
// threads of this process, one per device of --gpus, and the processes of an mpirun job, in one
// HostTeam (host sums in global rank order). The backends' devices come from a resolver each
// GPU layer registers (cuda/multi); the cpu backend's ranks are host threads.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compute/core/team.hpp"

namespace tomo {

struct Ranks {
  std::unique_ptr<HostTeam> team;  // nullptr: one rank (no --gpus, no mpirun)
  std::vector<int> devices;        // this process's ranks' devices, in local rank order (cpu: −1)
  std::vector<std::string> names;  // for report.json: "cpu rank 0", "CUDA 1: …"
  int size() const { return team ? team->size() : 1; }
};

// --gpus text → this process's device indices (a GPU layer's resolver; InputError for a bad value).
using DeviceResolver = std::function<std::vector<int>(const std::string& gpus, const ProcessGroup* group)>;
void register_device_resolver(const std::string& backend, DeviceResolver resolve, std::function<std::string(int)> name);

// The ranks for `backend` and the --gpus text (empty: none given; "1" under mpirun). One rank
// when neither --gpus nor mpirun asks for more; UnavailableError for a backend that cannot run
// as several ranks (`who` names the problem).
Ranks make_ranks(const std::string& backend, const std::string& gpus, const std::string& who);

// Runs `configure` with runtime_options().cuda_device = device: a rank's thread makes and
// configures its backend in it (the cuda backends select their GPU from that option when made or
// configured, and the thread keeps it current); one rank at a time. device < 0: as it is.
void configure_on_device(int device, const std::function<void()>& configure);

}  // namespace tomo
