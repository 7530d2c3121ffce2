// The ranks of a list-mode problem on several devices: threads of this process and mpirun's processes.
#include "compute/multi/ranks.hpp"

#include <map>
#include <mutex>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/mpi_world.hpp"
#include "compute/core/runtime_options.hpp"

namespace tomo {

namespace {

struct Resolver {
  DeviceResolver resolve;
  std::function<std::string(int)> name;
};

std::map<std::string, Resolver>& resolvers() {
  static std::map<std::string, Resolver> m;
  return m;
}

std::mutex& device_option_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

void register_device_resolver(const std::string& backend, DeviceResolver resolve, std::function<std::string(int)> name) {
  resolvers()[backend] = {std::move(resolve), std::move(name)};
}

Ranks make_ranks(const std::string& backend, const std::string& gpus_given, const std::string& who) {
  ProcessGroup* group = process_group();
  if (gpus_given.empty() && !group) return {};
  const std::string gpus = gpus_given.empty() ? "1" : gpus_given;  // under mpirun: one device per process
  Ranks r;
  if (backend == "cpu") {
    const int n = int(parse_device_spec(gpus, -1, "").size());  // host threads: "N", or as many as a list names
    r.devices.assign(std::size_t(n), -1);
  } else if (auto it = resolvers().find(backend); it != resolvers().end()) {
    r.devices = it->second.resolve(gpus, group);
  } else {
    throw UnavailableError(str_cat("--gpus/mpirun: ", who, " runs as several ranks on the cpu and cuda backends, not on ",
                                   backend));
  }
  r.team = std::make_unique<HostTeam>(int(r.devices.size()), group);
  for (std::size_t i = 0; i < r.devices.size(); ++i) {
    const int rank = r.team->first_local_rank() + int(i);
    if (r.devices[i] < 0) {
      r.names.push_back(str_cat("cpu rank ", rank));
    } else {
      r.names.push_back(str_cat("rank ", rank, ": ", resolvers()[backend].name(r.devices[i])));
    }
  }
  return r;
}

void configure_on_device(int device, const std::function<void()>& configure) {
  if (device < 0) return configure();
  std::lock_guard lock(device_option_mutex());
  auto& opt = runtime_options();
  const int before = opt.cuda_device;
  opt.cuda_device = device;
  try {
    configure();
  } catch (...) {
    opt.cuda_device = before;
    throw;
  }
  opt.cuda_device = before;
}

}  // namespace tomo
