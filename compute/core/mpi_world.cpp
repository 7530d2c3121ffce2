// MPI_COMM_WORLD as a ProcessGroup, through Open MPI's libmpi loaded at run time. Why dlopen:
// one binary then runs on machines with and without Open MPI (the GPU machines have none unless
// a runtime is carried, tools/mpi-pack.sh), as NCCL is loaded (cuda/multi/nccl_team.cpp). The
// cost is Open MPI's ABI: its handles (MPI_COMM_WORLD, MPI_BYTE) are addresses of the global
// objects ompi_mpi_comm_world and ompi_mpi_byte, looked up with dlsym; mpi.h is used for the
// types and signatures only, and nothing links against libmpi. MPICH's handles are integers:
// it would need its own lookup (or the MPI 5 ABI).
#include "compute/core/mpi_world.hpp"

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

#if TOMO_HAVE_MPI
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace tomo {

LaunchEnvironment launch_environment() {
  LaunchEnvironment env;
  for (const auto& [size_var, rank_var] : {std::pair{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
                                           std::pair{"PMI_SIZE", "PMI_RANK"}}) {
    const char* size = std::getenv(size_var);
    const char* rank = std::getenv(rank_var);
    if (!size || !rank) continue;
    char* end = nullptr;
    const long n = std::strtol(size, &end, 10);
    if (*end || n < 1 || n > INT_MAX) continue;
    const long r = std::strtol(rank, &end, 10);
    if (*end || r < 0 || r >= n) continue;
    env.size = int(n), env.rank = int(r), env.variable = size_var;
    return env;
  }
  return env;
}

#if TOMO_HAVE_MPI
namespace {

class MpiWorld final : public ProcessGroup {
 public:
  MpiWorld();
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int node_rank() const override { return node_rank_; }
  int node_size() const override { return node_size_; }
  std::string describe() const override { return str_cat("MPI (", version_, ")"); }
  void allgatherv(const void* in, void* out, const std::vector<std::size_t>& counts) override;
  void broadcast(void* data, std::size_t bytes, int root) override;
  [[noreturn]] void abort(int code) {
    abort_(comm_, code);
    std::_Exit(code);
  }
  void finalize() {
    int done = 0;
    if (finalized_(&done) == MPI_SUCCESS && !done) finalize_();
  }

 private:
  void check(int rc, const char* what) const;
  template <class F>
  void bind(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib_, name));
    if (!f) throw UnavailableError(str_cat("the MPI library lacks ", name, " (tomoraster needs Open MPI's libmpi.so.40)"));
  }
  void* lib_ = nullptr;
  MPI_Comm comm_ = nullptr;
  MPI_Datatype byte_ = nullptr;
  decltype(&MPI_Init_thread) init_thread_ = nullptr;
  decltype(&MPI_Finalize) finalize_ = nullptr;
  decltype(&MPI_Finalized) finalized_ = nullptr;
  decltype(&MPI_Comm_rank) comm_rank_ = nullptr;
  decltype(&MPI_Comm_size) comm_size_ = nullptr;
  decltype(&MPI_Allgatherv) allgatherv_ = nullptr;
  decltype(&MPI_Bcast) bcast_ = nullptr;
  decltype(&MPI_Abort) abort_ = nullptr;
  decltype(&MPI_Error_string) error_string_ = nullptr;
  decltype(&MPI_Get_library_version) library_version_ = nullptr;
  int rank_ = 0, size_ = 1, node_rank_ = 0, node_size_ = 1;
  std::string version_;
};

MpiWorld::MpiWorld() {
  const char* path = std::getenv("TOMO_MPI_LIBRARY");
  // RTLD_GLOBAL: Open MPI's components (mca_*.so), which it dlopens itself, resolve symbols of
  // libmpi and libopen-pal through the global scope.
  for (const char* name : {path, "libmpi.so.40", "libmpi.so"})
    if (name && !lib_) lib_ = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
  if (!lib_)
    throw UnavailableError(str_cat("started by mpirun, but Open MPI's libmpi could not be loaded (", dlerror(),
                                   "): put libmpi.so.40 on LD_LIBRARY_PATH or name it in TOMO_MPI_LIBRARY"));
  comm_ = reinterpret_cast<MPI_Comm>(dlsym(lib_, "ompi_mpi_comm_world"));
  byte_ = reinterpret_cast<MPI_Datatype>(dlsym(lib_, "ompi_mpi_byte"));
  if (!comm_ || !byte_) throw UnavailableError("the MPI library loaded is not Open MPI's (no ompi_mpi_comm_world)");
  bind(init_thread_, "MPI_Init_thread");
  bind(finalize_, "MPI_Finalize");
  bind(finalized_, "MPI_Finalized");
  bind(comm_rank_, "MPI_Comm_rank");
  bind(comm_size_, "MPI_Comm_size");
  bind(allgatherv_, "MPI_Allgatherv");
  bind(bcast_, "MPI_Bcast");
  bind(abort_, "MPI_Abort");
  bind(error_string_, "MPI_Error_string");
  bind(library_version_, "MPI_Get_library_version");
  // Serialized: one thread of a process (a team's leader rank, or main) calls MPI at a time.
  int provided = 0;
  check(init_thread_(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
  if (provided < MPI_THREAD_SERIALIZED)
    throw UnavailableError("the MPI library does not allow calls from several threads (MPI_THREAD_SERIALIZED)");
  check(comm_rank_(comm_, &rank_), "MPI_Comm_rank");
  check(comm_size_(comm_, &size_), "MPI_Comm_size");
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (library_version_(version, &len) == MPI_SUCCESS) version_ = std::string(version, std::strcspn(version, ",\n"));
  // The processes on this host (to share its GPUs): those whose host name equals ours.
  constexpr std::size_t kName = 256;
  std::vector<char> names(kName * std::size_t(size_), '\0');
  char mine[kName] = {};
  ::gethostname(mine, kName - 1);
  allgatherv(mine, names.data(), std::vector<std::size_t>(std::size_t(size_), kName));
  node_size_ = 0;
  for (int p = 0; p < size_; ++p)
    if (std::strncmp(&names[std::size_t(p) * kName], mine, kName) == 0) {
      if (p == rank_) node_rank_ = node_size_;
      ++node_size_;
    }
}

void MpiWorld::check(int rc, const char* what) const {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (error_string_) error_string_(rc, text, &len);
  throw Error(str_cat(what, " failed: ", text));
}

void MpiWorld::allgatherv(const void* in, void* out, const std::vector<std::size_t>& counts) {
  if (counts.size() != std::size_t(size_)) throw Error("allgatherv: one count per process");
  std::vector<int> n(counts.size()), at(counts.size());
  std::size_t total = 0;
  for (std::size_t p = 0; p < counts.size(); ++p) {
    if (counts[p] > std::size_t(INT_MAX) || total > std::size_t(INT_MAX))
      throw Error(str_cat("allgatherv: ", counts[p], " bytes at offset ", total, " exceed MPI's int counts"));
    n[p] = int(counts[p]), at[p] = int(total);
    total += counts[p];
  }
  check(allgatherv_(in, n[std::size_t(rank_)], byte_, out, n.data(), at.data(), byte_, comm_), "MPI_Allgatherv");
}

void MpiWorld::broadcast(void* data, std::size_t bytes, int root) {
  constexpr std::size_t kChunk = std::size_t(1) << 30;  // MPI counts are int
  for (std::size_t at = 0; at < bytes; at += kChunk)
    check(bcast_(static_cast<char*>(data) + at, int(std::min(kChunk, bytes - at)), byte_, root, comm_), "MPI_Bcast");
}

std::unique_ptr<MpiWorld>& world() {
  static std::unique_ptr<MpiWorld> w;
  return w;
}

}  // namespace

bool built_with_mpi() { return true; }

void start_processes() {
  const LaunchEnvironment env = launch_environment();
  if (env.size < 2 || world()) return;
  world() = std::make_unique<MpiWorld>();
  if (world()->size() != env.size)
    throw UnavailableError(str_cat(env.variable, " says ", env.size, " processes, MPI_COMM_WORLD has ",
                                   world()->size(), ": was this process started by Open MPI's mpirun?"));
  // Open MPI binds each process to one core when it starts two or fewer: the cpu stages
  // (Monte-Carlo simulation, system set-up) then run on one core and take minutes. Say so.
  cpu_set_t mask;
  const unsigned cores = std::thread::hardware_concurrency();
  if (sched_getaffinity(0, sizeof mask, &mask) == 0 && cores > 1 && static_cast<unsigned>(CPU_COUNT(&mask)) * 4 <= cores)
    log_warn("mpirun bound this process to ", CPU_COUNT(&mask), " of ", cores,
             " cores: the cpu stages will be slow; start it with `mpirun --bind-to none` (docs/multigpu.md)");
  // Finalize on every normal exit (an error ends the job through abort_processes instead).
  std::atexit([] {
    if (world()) world()->finalize();
  });
}

ProcessGroup* process_group() { return world().get(); }

int abort_processes(int code) {
  if (world()) world()->abort(code);
  return code;
}

#else

bool built_with_mpi() { return false; }

void start_processes() {
  const LaunchEnvironment env = launch_environment();
  if (env.size < 2) return;
  throw UnavailableError(str_cat("started as one of ", env.size, " processes (", env.variable,
                                 "), but this tomoraster was built without MPI (TOMO_WITH_MPI, Open MPI's "
                                 "libopenmpi-dev); run it as one process"));
}

ProcessGroup* process_group() { return nullptr; }
int abort_processes(int code) { return code; }

#endif

int process_rank() { return process_group() ? process_group()->rank() : launch_environment().rank; }

}  // namespace tomo
