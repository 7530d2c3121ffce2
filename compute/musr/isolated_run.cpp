// The run travels from the reading child as its header fields, histograms and per-histogram
// values, every length checked on decoding.
#include "compute/musr/isolated_run.hpp"

#include "compute/io/isolated_child.hpp"

namespace tomo::musr {

std::string encode_run(const RunData& r) {
  io::ByteWriter b;
  b.put(r.tdc_resolution);
  b.put(r.bin_width_us);
  b.put(r.run_number);
  for (const auto* s : {&r.sample, &r.temperature, &r.field, &r.orientation, &r.setup, &r.title, &r.lab, &r.area, &r.format}) b.text(*s);
  b.put(std::uint64_t(r.histograms.size()));
  for (const auto& h : r.histograms) b.vec(h);
  b.vec(r.t0);
  b.vec(r.first_good);
  b.vec(r.last_good);
  b.vec(r.events);
  b.put(std::uint64_t(r.labels.size()));
  for (const auto& l : r.labels) b.text(l);
  return b.take();
}

RunData decode_run(const std::string& bytes) {
  io::ByteReader in(bytes);
  RunData r;
  r.tdc_resolution = in.get<int>();
  r.bin_width_us = in.get<double>();
  r.run_number = in.get<int>();
  for (auto* s : {&r.sample, &r.temperature, &r.field, &r.orientation, &r.setup, &r.title, &r.lab, &r.area, &r.format}) *s = in.text();
  const auto nh = in.count(sizeof(std::uint64_t));
  for (std::uint64_t i = 0; i < nh; ++i) r.histograms.push_back(in.vec<std::int32_t>());
  r.t0 = in.vec<int>();
  r.first_good = in.vec<int>();
  r.last_good = in.vec<int>();
  r.events = in.vec<std::int32_t>();
  const auto nl = in.count(sizeof(std::uint64_t));
  for (std::uint64_t i = 0; i < nl; ++i) r.labels.push_back(in.text());
  return r;
}

RunData read_run_isolated(const std::filesystem::path& file, const std::string& library, const std::function<RunData()>& read) {
  return decode_run(io::run_isolated(file, library, [&] { return encode_run(read()); }));
}

}  // namespace tomo::musr
