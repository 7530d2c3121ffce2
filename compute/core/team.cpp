// HostTeam: std::thread per rank and a std::barrier per collective step.
#include "compute/core/team.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <thread>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo {

std::vector<int> parse_device_spec(const std::string& spec, int available, const std::string& what_is_there) {
  std::vector<int> out;
  if (spec == "all") {
    for (int d = 0; d < std::max(available, 1); ++d) out.push_back(d);
    if (available == 0) throw InputError("--gpus all: " + what_is_there);
    return out;
  }
  auto bad = [&] {
    return InputError("--gpus: '" + spec + "' is not all, a count, or a comma-separated list of device indices");
  };
  std::size_t at = 0;
  while (at <= spec.size()) {
    const std::size_t end = std::min(spec.find(',', at), spec.size());
    const std::string tok = spec.substr(at, end - at);
    if (tok.empty() || tok.size() > 4 || tok.find_first_not_of("0123456789") != std::string::npos) throw bad();
    out.push_back(std::stoi(tok));
    at = end + 1;
  }
  if (out.size() == 1) {  // a count N: devices 0..N-1
    const int n = out[0];
    if (n < 1) throw InputError("--gpus: a count must be >= 1, got " + spec);
    out.clear();
    for (int d = 0; d < n; ++d) out.push_back(d);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (std::size_t j = i + 1; j < out.size(); ++j)
      if (out[i] == out[j]) throw InputError("--gpus " + spec + ": device " + std::to_string(out[i]) + " named twice");
    if (available >= 0 && out[i] >= available)
      throw InputError("--gpus " + spec + ": device " + std::to_string(out[i]) + " asked for; " + what_is_there);
  }
  return out;
}

HostTeam::HostTeam(int local, ProcessGroup* group)
    : size_(local), local_(local), group_(group), barrier_(local > 0 ? local : 1), slots_(local > 0 ? local : 1) {
  if (local < 1) throw InputError("a team needs at least one rank, got " + std::to_string(local));
  if (!group_) return;
  // Every process's rank count: global ranks are numbered process by process.
  std::vector<long long> counts(std::size_t(group_->size()));
  const long long mine = local;
  group_->allgatherv(&mine, counts.data(), std::vector<std::size_t>(counts.size(), sizeof mine));
  size_ = 0;
  for (int p = 0; p < group_->size(); ++p) {
    if (p == group_->rank()) offset_ = size_;
    process_ranks_.push_back(int(counts[std::size_t(p)]));
    size_ += int(counts[std::size_t(p)]);
  }
}

std::string HostTeam::describe() const {
  if (!group_) return std::to_string(size_) + " ranks (threads, host collectives)";
  return str_cat(size_, " ranks in ", group_->size(), " processes (", local_, " threads here, ranks ", offset_, "..",
                 offset_ + local_ - 1, "; host collectives over ", group_->describe(), ")");
}

void HostTeam::run(const std::function<void(int rank)>& f) {
  cancelled_ = false;
  std::vector<std::exception_ptr> errors(local_);
  std::vector<std::thread> threads;
  threads.reserve(local_);
  for (int l = 0; l < local_; ++l)
    threads.emplace_back([&, l] {
      try {
        f(offset_ + l);
      } catch (...) {
        errors[l] = std::current_exception();
        {
          std::lock_guard lock(mutex_);
          cancelled_ = true;
        }
        // Leave the barrier for good, so the ranks still inside collectives are released and
        // see the cancellation instead of waiting for this one.
        barrier_.arrive_and_drop();
      }
    });
  for (auto& t : threads) t.join();
  // A dropped rank shrinks the barrier for its lifetime: a fresh one for the next run().
  if (cancelled_) std::destroy_at(&barrier_), std::construct_at(&barrier_, local_);
  // Rethrow the failure that caused the cancellation, not a rank's "team cancelled" echo.
  for (auto& e : errors)
    if (e) try {
        std::rethrow_exception(e);
      } catch (const Error& err) {
        if (std::string(err.what()) == "team cancelled") continue;
        throw;
      }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

void HostTeam::arrive(int) {
  barrier_.arrive_and_wait();
  std::lock_guard lock(mutex_);
  if (cancelled_) throw Error("team cancelled");
}

template <class T>
void HostTeam::reduce(int rank, std::span<T> v) {
  if (group_) return reduce_processes(rank, v);
  slots_[rank] = v.data();
  arrive(rank);
  // Each rank sums all slots in rank order into a private copy: identical on every rank.
  std::vector<T> sum(v.size(), T(0));
  for (int r = 0; r < size_; ++r) {
    const T* s = static_cast<const T*>(slots_[r]);
    for (std::size_t i = 0; i < v.size(); ++i) sum[i] += s[i];
  }
  arrive(rank);  // nobody overwrites its input before all have read it
  std::copy(sum.begin(), sum.end(), v.begin());
}

void HostTeam::allreduce_sum(int rank, std::span<double> v) { reduce(rank, v); }
void HostTeam::allreduce_sum(int rank, std::span<float> v) { reduce(rank, v); }

void HostTeam::broadcast(int rank, std::span<float> v, int root) {
  if (group_) return broadcast_processes(rank, v, root);
  slots_[rank] = v.data();
  arrive(rank);
  if (rank != root) {
    const float* s = static_cast<const float*>(slots_[root]);
    std::copy(s, s + v.size(), v.begin());
  }
  arrive(rank);
}

template <class T>
void HostTeam::reduce_processes(int rank, std::span<T> v) {
  const int l = rank - offset_;
  slots_[std::size_t(l)] = v.data();
  arrive(rank);
  const std::size_t n = v.size();
  if (l == 0) {
    // The leader gathers every rank's vector from every process and sums them in global rank
    // order, as HostTeam does in one process: the same bits on every rank and in every layout.
    // Chunks keep each process's part under 1 GiB (MPI counts are int).
    const int most = *std::max_element(process_ranks_.begin(), process_ranks_.end());
    const std::size_t chunk = std::max<std::size_t>(1, (std::size_t(1) << 30) / (sizeof(T) * std::size_t(most)));
    shared_.resize(n * sizeof(T));
    T* sum = reinterpret_cast<T*>(shared_.data());
    std::vector<T> mine, all;
    std::vector<std::size_t> counts(process_ranks_.size());
    for (std::size_t at = 0; at < n; at += chunk) {
      const std::size_t c = std::min(chunk, n - at);
      mine.resize(std::size_t(local_) * c);
      for (int k = 0; k < local_; ++k)
        std::copy_n(static_cast<const T*>(slots_[std::size_t(k)]) + at, c, mine.begin() + std::ptrdiff_t(k * c));
      for (std::size_t p = 0; p < counts.size(); ++p) counts[p] = std::size_t(process_ranks_[p]) * c * sizeof(T);
      all.resize(std::size_t(size_) * c);
      group_->allgatherv(mine.data(), all.data(), counts);
      for (std::size_t i = 0; i < c; ++i) sum[at + i] = T(0);
      for (int r = 0; r < size_; ++r)
        for (std::size_t i = 0; i < c; ++i) sum[at + i] += all[std::size_t(r) * c + i];
    }
  }
  // Nobody overwrites its input before the leader has read it; the next collective's leader
  // writes shared_ only after every rank arrived there, i.e. after every rank copied this sum.
  arrive(rank);
  const T* sum = reinterpret_cast<const T*>(shared_.data());
  std::copy(sum, sum + n, v.begin());
}

void HostTeam::broadcast_processes(int rank, std::span<float> v, int root) {
  const int l = rank - offset_;
  slots_[std::size_t(l)] = v.data();
  arrive(rank);
  const std::size_t bytes = v.size() * sizeof(float);
  if (l == 0) {
    int process = 0;
    for (int first = 0; root >= first + process_ranks_[std::size_t(process)]; ++process)
      first += process_ranks_[std::size_t(process)];
    shared_.resize(bytes);
    if (root >= offset_ && root < offset_ + local_)
      std::copy_n(static_cast<const unsigned char*>(slots_[std::size_t(root - offset_)]), bytes, shared_.data());
    group_->broadcast(shared_.data(), bytes, process);
  }
  arrive(rank);
  if (rank != root) std::copy_n(shared_.data(), bytes, reinterpret_cast<unsigned char*>(v.data()));
}

std::vector<int> process_devices(const std::string& spec, int available, const std::string& what_is_there,
                                 const ProcessGroup* group) {
  if (!group || group->node_size() <= 1 || spec.find(',') != std::string::npos)
    return parse_device_spec(spec, available, what_is_there);
  std::vector<int> out = parse_device_spec(spec, -1, what_is_there);  // the text; the indices are checked below
  const int k = group->node_rank(), n = group->node_size();
  if (spec == "all") {
    const int per = available / n;
    if (per < 1)
      throw InputError(str_cat("--gpus all: ", n, " processes on this host share ", available, " devices; ",
                                     what_is_there));
    out.clear();
    for (int d = 0; d < per; ++d) out.push_back(k * per + d);
    return out;
  }
  const int count = int(out.size());
  if (available >= 0 && n * count > available) {
    // Each process sees only its own devices (CUDA_VISIBLE_DEVICES per process, as Slurm binds them).
    if (count == available) return out;
    throw InputError(str_cat("--gpus ", spec, ": ", n, " processes on this host would take ", n * count,
                                   " devices; ", what_is_there));
  }
  for (int& d : out) d += k * count;  // the k-th process of this host takes the k-th block
  return out;
}

std::vector<std::string> allgather_strings(ProcessGroup* group, const std::vector<std::string>& mine) {
  if (!group) return mine;
  std::string joined;
  for (const auto& s : mine) joined += s + '\n';
  std::vector<unsigned long long> sizes(std::size_t(group->size()));
  const unsigned long long my_size = joined.size();
  group->allgatherv(&my_size, sizes.data(), std::vector<std::size_t>(sizes.size(), sizeof my_size));
  std::vector<std::size_t> counts(sizes.begin(), sizes.end());
  std::size_t total = 0;
  for (auto c : counts) total += c;
  std::string all(total, '\0');
  group->allgatherv(joined.data(), all.data(), counts);
  std::vector<std::string> out;
  for (std::size_t at = 0, end; (end = all.find('\n', at)) != std::string::npos; at = end + 1)
    out.push_back(all.substr(at, end - at));
  return out;
}

}  // namespace tomo
