// A team of ranks that run one function side by side (one thread each, one GPU each) and
// meet in collectives: the multi-GPU layer's interface, written once for every backend
// (docs/multigpu.md). HostTeam is its threads-and-host-memory form: the reference that cpu
// and GL ranks use, and what the NCCL team (cuda/multi) falls back to for host data.
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
// "0,2". InputError for other text, repeats or a count < 1; UnavailableError naming
// `what_is_there` when an index is not below `available` (available < 0: no limit, and "all"
// is one). Shared by every backend's multi-device factory.
std::vector<int> parse_device_spec(const std::string& spec, int available, const std::string& what_is_there);

class Team {
 public:
  virtual ~Team() = default;
  virtual int size() const = 0;
  virtual std::string describe() const = 0;
  // Runs f(rank) for every rank at once, each on its own thread, and returns when all are
  // done; the first exception of any rank is rethrown here after the others finished or
  // were released from collectives (a rank that throws cancels the team).
  virtual void run(const std::function<void(int rank)>& f) = 0;
  // Collectives over host vectors: every rank calls them with the same size, in the same order.
  virtual void allreduce_sum(int rank, std::span<double> v) = 0;
  virtual void allreduce_sum(int rank, std::span<float> v) = 0;
  virtual void broadcast(int rank, std::span<float> v, int root) = 0;
};

// Ranks as threads of this process, collectives through shared host memory. Sums are taken
// in rank order on every rank, so every rank holds bit-identical results.
class HostTeam : public Team {
 public:
  explicit HostTeam(int size);
  int size() const override { return size_; }
  std::string describe() const override;
  void run(const std::function<void(int rank)>& f) override;
  void allreduce_sum(int rank, std::span<double> v) override;
  void allreduce_sum(int rank, std::span<float> v) override;
  void broadcast(int rank, std::span<float> v, int root) override;

 protected:
  // Waits for every rank; throws Error("team cancelled") when a rank failed meanwhile.
  void arrive(int rank);
  int size_;

 private:
  template <class T>
  void reduce(int rank, std::span<T> v);
  std::barrier<> barrier_;
  std::vector<void*> slots_;
  std::mutex mutex_;
  bool cancelled_ = false;
};

}  // namespace tomo
