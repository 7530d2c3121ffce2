// RabbitCT runner outputs (see rabbitct_result.hpp; docs/fdk.md has the byte tables).
#include "compute/fdk/rabbitct_result.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/io/atomic_file.hpp"

namespace tomo::fdk {

namespace {
template <class T>
void put(std::ostream& out, const T& v) {
  out.write(reinterpret_cast<const char*>(&v), sizeof v);
}
}  // namespace

void write_rabbitct_result(const std::filesystem::path& path, const std::filesystem::path& vol, const RabbitResult& r) {
  const std::size_t L = static_cast<std::size_t>(r.L);
  if (r.L < 2 || r.hu.size() != L * L * L || r.runtime_us.empty() || (r.version != 1 && r.version != 2))
    throw Error(str_cat(path.string(), ": inconsistent RabbitCT result (L = ", r.L, ", ", r.hu.size(), " voxels, ",
                        r.runtime_us.size(), " projections, version ", r.version, ")"));
  write_bytes_atomic(vol, r.hu.data(), r.hu.size() * sizeof(float));
  write_file_atomic(path, [&](std::ostream& out) {
    const bool v2 = r.version == 2;
    put(out, v2 ? kRctdMagicV2 : kRctdMagicV1);
    if (v2) put(out, std::int32_t{2});
    put(out, static_cast<std::int32_t>(r.L));
    put(out, static_cast<std::uint32_t>(r.runtime_us.size()));
    out.write(reinterpret_cast<const char*>(r.runtime_us.data()),
              static_cast<std::streamsize>(r.runtime_us.size() * sizeof(std::uint64_t)));
    const float* slice = r.hu.data() + (L / 2 - 1) * L * L;  // the runner's slice k = L/2 − 1
    out.write(reinterpret_cast<const char*>(slice), static_cast<std::streamsize>(L * L * sizeof(float)));
    put(out, r.metric.mse);
    put(out, r.metric.max_abs);
    out.write(reinterpret_cast<const char*>(r.metric.histogram.data()),
              static_cast<std::streamsize>(r.metric.histogram.size() * sizeof(std::uint32_t)));
    put(out, v2 ? kRctdEndV2 : kRctdEndV1);
  });
}

std::vector<std::uint64_t> even_runtimes_us(double total_ms, int projections) {
  if (projections < 1) return {};
  const auto total = static_cast<std::uint64_t>(std::llround(std::max(0.0, total_ms) * 1000.0));
  std::vector<std::uint64_t> t(static_cast<std::size_t>(projections), total / projections);
  for (std::uint64_t i = 0; i < total % projections; ++i) ++t[i];
  return t;
}

}  // namespace tomo::fdk
