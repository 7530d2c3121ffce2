// Host-memory estimates made from the scene before anything large is allocated, so a
// legal-looking but huge size stops at once with exit 2 naming the keys.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace tomo {

// What a run will allocate on the host, roughly: the dominant buffers only.
struct MemoryEstimate {
  double bytes = 0;                                        // double: sizes of 2^60 must not wrap
  std::vector<std::pair<std::string, std::string>> keys;  // scene keys that drive it, with their values
  std::string breakdown;                                   // "4 volumes of 32 GiB, ..."
  double largest = 0;                                      // bytes of the largest term
  std::string largest_key;                                 // the key that drives it: what to reduce

  // Adds `count` buffers of `each` bytes, described as "<count> <what> of <size>"; `driver`
  // is the scene key their size follows.
  void add(double count, double each, const std::string& what, const std::string& driver);
  void key(const std::string& name, const std::string& value) { keys.emplace_back(name, value); }
};

// Bytes of host memory available now: MemAvailable of /proc/meminfo, else sysconf's
// available pages × page size.
double host_memory_available();

// "98.3 GiB", "12.0 MiB", "512 B".
std::string format_bytes(double bytes);

// Throws InputError (exit 2) when e.bytes exceeds `available` (default: host_memory_available()):
// "<what>: needs about X of host memory (k = v: breakdown; Y available): reduce <largest_key>".
void require_host_memory(const MemoryEstimate& e, const std::string& what, double available = -1);

}  // namespace tomo
