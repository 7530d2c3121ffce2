// HostTeam: std::thread per rank and a std::barrier per collective step.
#include "compute/core/team.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <thread>

#include "compute/core/error.hpp"

namespace tomo {

std::vector<int> parse_device_spec(const std::string& spec, int available, const std::string& what_is_there) {
  std::vector<int> out;
  if (spec == "all") {
    for (int d = 0; d < std::max(available, 1); ++d) out.push_back(d);
    if (available == 0) throw UnavailableError("--gpus all: " + what_is_there);
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
      throw UnavailableError("--gpus " + spec + ": device " + std::to_string(out[i]) + " asked for; " + what_is_there);
  }
  return out;
}

HostTeam::HostTeam(int size) : size_(size), barrier_(size > 0 ? size : 1), slots_(size > 0 ? size : 1) {
  if (size < 1) throw InputError("a team needs at least one rank, got " + std::to_string(size));
}

std::string HostTeam::describe() const { return std::to_string(size_) + " ranks (threads, host collectives)"; }

void HostTeam::run(const std::function<void(int rank)>& f) {
  cancelled_ = false;
  std::vector<std::exception_ptr> errors(size_);
  std::vector<std::thread> threads;
  threads.reserve(size_);
  for (int r = 0; r < size_; ++r)
    threads.emplace_back([&, r] {
      try {
        f(r);
      } catch (...) {
        errors[r] = std::current_exception();
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
  if (cancelled_) std::destroy_at(&barrier_), std::construct_at(&barrier_, size_);
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
  slots_[rank] = v.data();
  arrive(rank);
  if (rank != root) {
    const float* s = static_cast<const float*>(slots_[root]);
    std::copy(s, s + v.size(), v.begin());
  }
  arrive(rank);
}

}  // namespace tomo
