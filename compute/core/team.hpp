// A team of ranks that run one function side by side (one thread each, one GPU each) and
// meet in collectives: the multi-GPU layer's interface, written once for every backend
// (docs/multigpu.md). HostTeam is its threads-and-host-memory form: the reference that cpu
// and GL ranks use, and what the NCCL team (cuda/multi) falls back to for host data. Given a
// ProcessGroup (MPI, compute/core/mpi_world.hpp) it spans processes: the ranks of this
// process are threads, the global rank is the process's offset plus the local rank.
#pragma once
#include <barrier>
#include <cstddef>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace tomo {

// The --gpus text as device indices: "all" (0..available−1), a count "N" (0..N−1) or a list
// "0,2". InputError for other text, repeats or a count < 1, and (naming `what_is_there`) when
// an index is not below `available` (available < 0: no limit, and "all" is one): a --gpus
// value that cannot be honoured is bad input (exit 2), whatever the reason. Shared by every backend's multi-device factory.
std::vector<int> parse_device_spec(const std::string& spec, int available, const std::string& what_is_there);

// The processes of a job (MPI_COMM_WORLD when mpirun started it): byte collectives between
// processes, called by one thread of each process at a time, in the same order everywhere.
class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;  // this process
  virtual int size() const = 0;
  virtual int node_rank() const = 0;  // among the processes on this host
  virtual int node_size() const = 0;
  virtual std::string describe() const = 0;
  // out = every process's `in`, in process order; process p sends counts[p] bytes.
  virtual void allgatherv(const void* in, void* out, const std::vector<std::size_t>& counts) = 0;
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
};

// The --gpus text for this process: as parse_device_spec, but where several processes of a
// job share a host, a count N gives the k-th of them devices kN…kN+N−1 and "all" an equal
// slice of the host's devices (a list is taken as written); where a process sees exactly N
// devices (bound to it by CUDA_VISIBLE_DEVICES), N gives it those. group == nullptr: parse_device_spec.
std::vector<int> process_devices(const std::string& spec, int available, const std::string& what_is_there,
                                 const ProcessGroup* group);
// Every process's strings, in process order (`mine` alone without a group).
std::vector<std::string> allgather_strings(ProcessGroup* group, const std::vector<std::string>& mine);

class Team {
 public:
  virtual ~Team() = default;
  virtual int size() const = 0;  // all ranks, of every process
  virtual std::string describe() const = 0;
  // Runs f(rank) for every rank of this process at once, each on its own thread, and returns
  // when all are done; the first exception of any rank is rethrown here after the others
  // finished or were released from collectives (a rank that throws cancels the team; a
  // failure in another process ends the job, docs/multigpu.md).
  virtual void run(const std::function<void(int rank)>& f) = 0;
  // Collectives over host vectors: every rank calls them with the same size, in the same order.
  virtual void allreduce_sum(int rank, std::span<double> v) = 0;
  virtual void allreduce_sum(int rank, std::span<float> v) = 0;
  virtual void broadcast(int rank, std::span<float> v, int root) = 0;
  // The lowest rank that runs in this process, and the processes the team spans (nullptr: one).
  virtual int first_local_rank() const { return 0; }
  virtual ProcessGroup* process_group() const { return nullptr; }
};

// Ranks as threads of this process, collectives through shared host memory (and the group's
// allgather between processes). Sums are taken in global rank order on every rank, so every
// rank holds bit-identical results, and one process with G ranks sums exactly as G processes.
class HostTeam : public Team {
 public:
  // `local` ranks in this process; with a group, every process says how many it has.
  explicit HostTeam(int local, ProcessGroup* group = nullptr);
  int size() const override { return size_; }
  std::string describe() const override;
  void run(const std::function<void(int rank)>& f) override;
  void allreduce_sum(int rank, std::span<double> v) override;
  void allreduce_sum(int rank, std::span<float> v) override;
  void broadcast(int rank, std::span<float> v, int root) override;
  int first_local_rank() const override { return offset_; }
  ProcessGroup* process_group() const override { return group_; }
  int local_size() const { return local_; }

 protected:
  // Waits for every rank of this process; throws Error("team cancelled") when one failed meanwhile.
  void arrive(int rank);
  int size_;

 private:
  template <class T>
  void reduce(int rank, std::span<T> v);
  template <class T>
  void reduce_processes(int rank, std::span<T> v);
  void broadcast_processes(int rank, std::span<float> v, int root);
  int local_;
  int offset_ = 0;
  ProcessGroup* group_;
  std::vector<int> process_ranks_;  // ranks of each process (group only)
  std::barrier<> barrier_;
  std::vector<void*> slots_;
  std::vector<unsigned char> shared_;  // the leader's gathered sum / broadcast (group only)
  std::mutex mutex_;
  bool cancelled_ = false;
};

}  // namespace tomo
