// The host side of safir's cuda Monte-Carlo (cuda/safir/cuda_simulator.cpp): what it costs to
// get the events and their time stamps (8 bytes each, 13.9 M of them on the seed scene) from the
// device into the host's list mode. Rows: a zero-filled std::vector (serial page touching), a
// buffer touched by every thread, the same with transparent huge pages asked for, pageable
// downloads into an untouched and a touched buffer, cudaHostRegister of a fresh and of a touched
// buffer around a download, cudaMallocHost, the host's time_stamps() on all threads, and whole
// host sides for the two arrays (allocation to filled): zero-filled vectors, FillVectors touched
// or not, downloaded pageable, registered or through cuda::HostStaging; and the list reordered
// for 8 OSEM subsets (a run's upload) as before and as now.
// Every row is the best and the median of --reps runs. Usage: bench_safir_host [--events N]
// [--reps R] [--json FILE]
#include <omp.h>
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/harness.hpp"
#include "compute/core/fill_allocator.hpp"
#include "compute/safir/simulator.hpp"
#include "compute/safir/subsets.hpp"

#if defined(TOMO_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/host_staging.hpp"
#endif

using tomo::bench::Clock;
using tomo::bench::ms_since;

namespace {

struct Buffer {  // 8-byte words, not initialised; `huge`: 2 MiB aligned with MADV_HUGEPAGE asked
  std::uint64_t* p = nullptr;
  std::size_t n = 0;
  Buffer(std::size_t words, bool huge) : n(words) {
    const std::size_t bytes = (words * 8 + (std::size_t(2) << 20) - 1) / (std::size_t(2) << 20) * (std::size_t(2) << 20);
    p = static_cast<std::uint64_t*>(std::aligned_alloc(std::size_t(2) << 20, bytes));
    if (!p) throw std::bad_alloc();
    if (huge) (void)madvise(p, bytes, MADV_HUGEPAGE);
  }
  ~Buffer() { std::free(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void touch_parallel() {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < std::int64_t(n); i += 512) p[i] = 0;  // one word per 4 KiB page
  }
};

void touch_parallel(tomo::FillVector<std::uint64_t>& v) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < std::int64_t(v.size()); i += 512) v[std::size_t(i)] = 0;
}

std::string first_line(const char* path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t events = 13901607;
  int reps = 3;
  tomo::bench::Cli cli("bench_safir_host", "safir cuda Monte-Carlo: host list allocation, downloads, time stamps");
  cli.app().add_option("--events", events, "events (8 bytes each per array)");
  cli.app().add_option("--reps", reps, "runs per row");
  cli.parse(argc, argv);
  const std::size_t n = events;
  std::map<std::string, std::vector<double>> rows;
  auto row = [&](const std::string& name, double ms) { rows[name].push_back(ms); };

  for (int r = 0; r < reps; ++r) {
    {
      const auto t0 = Clock::now();
      std::vector<tomo::safir::Event> v(n);
      row("vector<Event>(n) zero-filled", ms_since(t0));
    }
    {
      Buffer b(n, false);
      const auto t0 = Clock::now();
      b.touch_parallel();
      row("fresh buffer touched by all threads", ms_since(t0));
    }
    {
      Buffer b(n, true);
      const auto t0 = Clock::now();
      b.touch_parallel();
      row("fresh buffer, MADV_HUGEPAGE, touched by all threads", ms_since(t0));
    }
    {
      Buffer b(n, true);
      const auto t0 = Clock::now();
      std::memset(b.p, 0, n * 8);
      row("fresh buffer, MADV_HUGEPAGE, memset by one thread", ms_since(t0));
    }
    {
      const auto t0 = Clock::now();
      const auto t = tomo::safir::time_stamps(events, 1.0, 1);
      row("time_stamps() on all threads (its vector included)", ms_since(t0));
    }
    {
      // A run's upload with 8 OSEM subsets: the list reordered into the subsets' windows, by
      // the permutation's indices (as before) and as order_for_subsets writes it now.
      std::vector<tomo::safir::Event> ev(n);
      for (std::size_t i = 0; i < n; ++i) ev[i] = {std::uint32_t(i), std::uint32_t(i + 1)};
      const std::vector<tomo::safir::Frame> frames{{0, n, 0.0, 1.0}};
      auto t0 = Clock::now();
      {
        const std::vector<std::size_t> perm = tomo::safir::subset_permutation(n, frames, 8);
        std::vector<tomo::safir::Event> out(n);
        for (std::size_t p = 0; p < n; ++p) out[p] = ev[perm[p]];
      }
      row("8 subsets: reordered by the permutation, one thread", ms_since(t0));
      t0 = Clock::now();
      { const auto out = tomo::safir::order_for_subsets(ev, frames, 8); }
      row("8 subsets: order_for_subsets on all threads", ms_since(t0));
    }
#if defined(TOMO_HAVE_CUDA)
    if (tomo::cuda::cuda_availability().ok) {
      tomo::cuda::DeviceBuffer<std::uint64_t> d(n);
      d.fill_zero();
      TOMO_CUDA_CHECK(cudaDeviceSynchronize());
      {
        Buffer b(n, false);
        const auto t0 = Clock::now();
        d.download(b.p, n);
        row("pageable download into a fresh buffer", ms_since(t0));
      }
      {
        Buffer b(n, false);
        b.touch_parallel();
        const auto t0 = Clock::now();
        d.download(b.p, n);
        row("pageable download into a touched buffer", ms_since(t0));
      }
      for (const bool touched : {false, true}) {
        for (const bool huge : {false, true}) {
          Buffer b(n, huge);
          if (touched) b.touch_parallel();
          const std::string what = std::string(touched ? "touched" : "fresh") + (huge ? " huge-page" : "") + " buffer";
          auto t0 = Clock::now();
          TOMO_CUDA_CHECK(cudaHostRegister(b.p, n * 8, cudaHostRegisterDefault));
          row("cudaHostRegister of a " + what, ms_since(t0));
          t0 = Clock::now();
          d.download(b.p, n);
          row("download into a registered " + what, ms_since(t0));
          t0 = Clock::now();
          TOMO_CUDA_CHECK(cudaHostUnregister(b.p));
          row("cudaHostUnregister of a " + what, ms_since(t0));
        }
      }
      {
        void* p = nullptr;
        auto t0 = Clock::now();
        TOMO_CUDA_CHECK(cudaMallocHost(&p, n * 8));
        row("cudaMallocHost", ms_since(t0));
        t0 = Clock::now();
        d.download(static_cast<std::uint64_t*>(p), n);
        row("download into cudaMallocHost memory", ms_since(t0));
        t0 = Clock::now();
        TOMO_CUDA_CHECK(cudaFreeHost(p));
        row("cudaFreeHost", ms_since(t0));
      }
      // Whole host sides of the generator: two arrays (events, stamps) from allocation to filled.
      {
        const auto t0 = Clock::now();
        std::vector<tomo::safir::Event> ev(n);
        std::vector<double> t(n);
        d.download(reinterpret_cast<std::uint64_t*>(ev.data()), n);
        d.download(reinterpret_cast<std::uint64_t*>(t.data()), n);
        row("2 arrays: std::vector zero-filled, pageable download", ms_since(t0));
      }
      for (const bool touch : {false, true}) {
        const auto t0 = Clock::now();
        tomo::FillVector<std::uint64_t> a(n), b(n);
        if (touch) touch_parallel(a), touch_parallel(b);
        const double touched = ms_since(t0);
        d.download(a.data(), n);
        d.download(b.data(), n);
        const std::string how = touch ? "FillVector touched by all threads" : "FillVector untouched";
        row("2 arrays: " + how + ", pageable download", ms_since(t0));
        if (touch) row("2 arrays: FillVector touched by all threads (touch only)", touched);
      }
      for (const bool touch : {false, true}) {
        const auto t0 = Clock::now();
        tomo::FillVector<std::uint64_t> a(n), b(n);
        if (touch) touch_parallel(a), touch_parallel(b);
        const double touched = ms_since(t0);
        TOMO_CUDA_CHECK(cudaHostRegister(a.data(), n * 8, cudaHostRegisterDefault));
        TOMO_CUDA_CHECK(cudaHostRegister(b.data(), n * 8, cudaHostRegisterDefault));
        const double registered = ms_since(t0);
        d.download(a.data(), n);
        d.download(b.data(), n);
        const double downloaded = ms_since(t0);
        TOMO_CUDA_CHECK(cudaHostUnregister(a.data()));
        TOMO_CUDA_CHECK(cudaHostUnregister(b.data()));
        const std::string how = touch ? "FillVector touched by all threads" : "FillVector untouched";
        row("2 arrays: " + how + ", registered download", ms_since(t0));
        row("2 arrays: " + how + ", registered download: register part", registered - touched);
        row("2 arrays: " + how + ", registered download: download part", downloaded - registered);
      }
      for (const bool touch : {false, true}) {
        tomo::cuda::HostStaging staging(std::size_t(4) << 20);  // two slabs of 16 MiB, as fdk's
        const auto t0 = Clock::now();
        tomo::FillVector<std::uint64_t> a(n), b(n);
        if (touch) touch_parallel(a), touch_parallel(b);
        const auto* src = reinterpret_cast<const float*>(d.data());
        staging.download(src, reinterpret_cast<float*>(a.data()), 2 * n, nullptr);
        staging.download(src, reinterpret_cast<float*>(b.data()), 2 * n, nullptr);
        const std::string how = touch ? "FillVector touched by all threads" : "FillVector untouched";
        row("2 arrays: " + how + ", HostStaging download (first use allocates)", ms_since(t0));
      }
    }
#endif
  }

  nlohmann::json j = {{"events", events},
                      {"bytes_per_array", n * 8},
                      {"threads", omp_get_max_threads()},
                      {"transparent_hugepage", first_line("/sys/kernel/mm/transparent_hugepage/enabled")},
                      {"rows", nlohmann::json::object()}};
  std::printf("bench_safir_host: %llu events (%.1f MB per array), %d threads, THP %s\n",
              static_cast<unsigned long long>(events), n * 8 / 1e6, omp_get_max_threads(),
              j["transparent_hugepage"].get<std::string>().c_str());
  std::printf("%-62s %9s %9s\n", "row", "best ms", "median ms");
  for (const auto& [name, times] : rows) {
    const double best = tomo::bench::best_of(times), median = tomo::bench::median_of(times);
    std::printf("%-62s %9.2f %9.2f\n", name.c_str(), best, median);
    j["rows"][name] = {{"best_ms", best}, {"median_ms", median}};
  }
  tomo::bench::write_report(cli.json_path(), j);
  return 0;
}
