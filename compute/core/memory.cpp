// Host-memory estimates and the check that refuses a run that cannot fit.
#include "compute/core/memory.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "compute/core/error.hpp"

namespace tomo {

void MemoryEstimate::add(double count, double each, const std::string& what, const std::string& driver) {
  bytes += count * each;
  if (count * each > largest) {
    largest = count * each;
    largest_key = driver;
  }
  if (!breakdown.empty()) breakdown += ", ";
  std::ostringstream c;
  c << count;
  breakdown += c.str() + " " + what + " of " + format_bytes(each);
}

double host_memory_available() {
  // MemAvailable counts reclaimable caches too, which is what an allocation can get.
  std::ifstream f("/proc/meminfo");
  std::string name;
  double kib = 0;
  std::string unit;
  while (f >> name >> kib >> unit)
    if (name == "MemAvailable:") return kib * 1024.0;
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 0.0;
}

std::string format_bytes(double bytes) {
  char buf[64];
  if (bytes >= 1024.0 * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  else if (bytes >= 1024.0 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024));
  else if (bytes >= 1024.0)
    std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  return buf;
}

void require_host_memory(const MemoryEstimate& e, const std::string& what, double available) {
  if (available < 0) available = host_memory_available();
  // No /proc and no sysconf answer: nothing to compare with, so let the allocation decide.
  if (available <= 0 || e.bytes <= available) return;
  std::string keys;
  for (const auto& [k, v] : e.keys) keys += (keys.empty() ? "" : ", ") + k + " = " + v;
  throw InputError(what + ": needs about " + format_bytes(e.bytes) + " of host memory (" + keys + ": " + e.breakdown +
                   "; " + format_bytes(available) + " available): reduce " + e.largest_key);
}

}  // namespace tomo
