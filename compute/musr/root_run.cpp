// MusrRoot / LEM ROOT runs: walks the folders' object trees (root_file.hpp), gathering
// histograms by name and the run header's entries, then lays the histograms out by their
// musrfit histogram numbers (numbers without a histogram hold an empty one, which a fit that
// uses it refuses).
#include "compute/musr/root_run.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/musr/root_file.hpp"

namespace tomo::musr {
namespace {

constexpr int kMaxDepth = 16;
constexpr int kLemTimeZeros = 32;  // TLemRunHeader's fTimeZero array

struct Histogram {
  std::string title;
  std::vector<std::int32_t> counts;  // bins 1..n of the TH1 (under- and overflow dropped)
};

struct Lem {
  bool found = false;
  std::string title, setup;
  int run = -1, nhist = 0;
  float temperature = 0, field = 0, resolution_ns = 0;
  std::vector<double> t0;
};

struct Tree {
  std::map<std::string, Histogram> histograms;
  std::map<std::string, std::string> header;  // "RunInfo/Label" or "Detector001/Label" → value
  Lem lem;
};

class Walker {
 public:
  Walker(root::Stream& s, Tree& t) : s_(s), t_(t) {}

  // The object of class `cls` whose content starts at the stream's position and ends at `end`.
  void visit(const std::string& cls, std::size_t end, const std::string& container, int depth) {
    if (depth > kMaxDepth) s_.fail("objects nest deeper than " + std::to_string(kMaxDepth));
    if (cls == "TFolder") folder(depth);
    else if (cls == "TList") list(container, depth);
    else if (cls == "TObjArray") array(depth);
    else if (cls == "TH1F" || cls == "TH1D") histogram(cls == "TH1D");
    else if (cls == "TObjString") header_entry(container);
    else if (cls == "TLemRunHeader") lem();
    s_.seek(end);  // anything else (statistics, scalers, other histograms) is skipped
  }
  void pointer(const std::string& container, int depth) {
    const auto p = s_.object_any();
    if (!p.null) visit(p.class_name, p.end, container, depth + 1);
  }

 private:
  void folder(int depth) {
    std::size_t end;
    (void)s_.version(end);
    const std::string name = s_.tnamed();
    pointer(name, depth);
    if (end) s_.seek(end);
  }
  void list(const std::string& container, int depth) {
    std::size_t end;
    const int v = s_.version(end);
    if (v > 3) s_.tobject();
    (void)s_.tstring();
    const std::int32_t n = s_.i32();
    if (n < 0 || std::size_t(n) > s_.size()) s_.fail("list of " + std::to_string(n) + " objects");
    for (std::int32_t i = 0; i < n; ++i) {
      pointer(container, depth);
      (void)s_.tstring();  // the entry's draw option
    }
    if (end) s_.seek(end);
  }
  void array(int depth) {
    std::size_t end;
    const int v = s_.version(end);
    if (v > 2) s_.tobject();
    const std::string name = v > 1 ? s_.tstring() : std::string();
    const std::int32_t n = s_.i32();
    (void)s_.i32();  // lower bound
    if (n < 0 || std::size_t(n) > s_.size()) s_.fail("array of " + std::to_string(n) + " objects");
    for (std::int32_t i = 0; i < n; ++i) pointer(name, depth);
    if (end) s_.seek(end);
  }
  void histogram(bool doubles) {
    std::size_t end, th1_end;
    (void)s_.version(end);
    (void)s_.version(th1_end);
    if (!end || !th1_end) s_.fail("histogram without byte counts");
    Histogram h;
    const std::string name = s_.tnamed(&h.title);
    if (name.rfind("hDecay", 0) != 0) return;  // slow-control and other histograms are not counts
    s_.seek(th1_end);
    const std::int32_t n = s_.i32();
    const std::size_t width = doubles ? 8 : 4;
    if (n < 3 || std::size_t(n) > (end - s_.pos()) / width)
      s_.fail("histogram '" + name + "' has " + std::to_string(n) + " cells in " + std::to_string(end - s_.pos()) + " bytes");
    (void)(doubles ? s_.f64() : s_.f32());  // underflow
    for (std::int32_t i = 1; i + 1 < n; ++i) {
      const double v = doubles ? s_.f64() : s_.f32();
      // Decay histograms count events: whole numbers from 0 to 2^31.
      if (!(v >= 0.0 && v < 2147483648.0) || v != std::floor(v))
        s_.fail("histogram '" + name + "' bin " + std::to_string(i) + " holds " + std::to_string(v) + ", not a count");
      h.counts.push_back(static_cast<std::int32_t>(v));
    }
    t_.histograms[name] = std::move(h);
  }
  std::string objstring() {
    std::size_t end;
    (void)s_.version(end);
    s_.tobject();
    std::string v = s_.tstring();
    if (end) s_.seek(end);
    return v;
  }
  // "NNN - Label: value -@type" (TMusrRunHeader's entries).
  void header_entry(const std::string& container) {
    const std::string e = objstring();
    const auto dash = e.find(" - "), colon = e.find(": "), tail = e.rfind(" -@");
    if (dash == std::string::npos || colon == std::string::npos || colon < dash) return;
    const std::size_t stop = tail != std::string::npos && tail > colon ? tail : e.size();
    t_.header[container + "/" + e.substr(dash + 3, colon - dash - 3)] = e.substr(colon + 2, stop - colon - 2);
  }
  // TLemRunHeader versions 4 and 5 (version 5 adds the post-pile-up offset after the stop time).
  void lem() {
    std::size_t end, stats_end;
    const int v = s_.version(end);
    if (v != 4 && v != 5) s_.fail("TLemRunHeader version " + std::to_string(v) + " is not read (4 and 5 are)");
    (void)s_.version(stats_end);  // base class TLemStats: skipped whole
    if (!end || !stats_end) s_.fail("TLemRunHeader without byte counts");
    s_.seek(stats_end);
    Lem& l = t_.lem;
    l.title = objstring();
    l.setup = objstring();
    (void)objstring();  // start, stop time text
    (void)objstring();
    if (v == 5) {
      (void)s_.u32();
      (void)objstring();
    }
    l.run = s_.i32();
    (void)objstring();
    (void)s_.u32();  // start, stop time
    (void)s_.u32();
    (void)s_.f32();  // moderator HV, error, text
    (void)s_.f32();
    (void)objstring();
    (void)s_.f32();  // sample HV, error, text
    (void)s_.f32();
    (void)objstring();
    (void)s_.f32();  // implantation energy, text
    (void)objstring();
    l.temperature = s_.f32();
    (void)s_.f32();
    (void)objstring();
    l.field = s_.f32();
    (void)s_.f32();
    (void)objstring();
    l.resolution_ns = s_.f32();
    (void)objstring();
    (void)s_.i32();  // channels, text
    (void)objstring();
    l.nhist = s_.i32();
    (void)objstring();
    (void)objstring();  // cuts, moderator
    (void)objstring();
    for (int i = 0; i < kLemTimeZeros; ++i) l.t0.push_back(s_.f64());
    (void)objstring();
    if (s_.pos() != end) s_.fail("TLemRunHeader ends at byte " + std::to_string(s_.pos()) + ", its byte count says " + std::to_string(end));
    l.found = true;
  }

  root::Stream& s_;
  Tree& t_;
};

// The folder of a top-level key, walked into `t`.
void walk_key(const root::File& f, const std::string& name, Tree& t) {
  const root::Key* k = f.find(name);
  if (!k) f.fail("has no key '" + name + "'");
  if (k->class_name != "TFolder") f.fail("key '" + name + "' holds a " + k->class_name + ", not a TFolder");
  root::Stream s(f.object(*k), k->key_bytes, f.where() + "' object '" + name);
  Walker(s, t).visit("TFolder", s.size(), name, 0);
}

std::string text_value(const Tree& t, const std::string& key) {
  auto it = t.header.find(key);
  return it == t.header.end() ? std::string() : it->second;
}

double number(const root::File& f, const std::string& key, const std::string& v) {
  double x = 0.0;
  if (std::sscanf(v.c_str(), "%lf", &x) != 1 || !std::isfinite(x)) f.fail("run header '" + key + "' value '" + v + "' is not a number");
  return x;
}

void add_histogram(const root::File& f, RunData& r, int number, const Histogram& h, double t0, int fgb, int lgb) {
  if (number < 1 || number > kRootMaxHistogramNumber) f.fail("histogram number " + std::to_string(number) + " is not in 1.." + std::to_string(kRootMaxHistogramNumber));
  if (!r.histograms.empty() && r.histograms[0].size() != h.counts.size() && !r.histograms[0].empty())
    f.fail("histogram " + std::to_string(number) + " has " + std::to_string(h.counts.size()) + " bins, the first has " + std::to_string(r.histograms[0].size()));
  const auto n = static_cast<std::size_t>(number);
  if (r.histograms.size() < n) {
    r.histograms.resize(n);
    r.t0.resize(n, 0);
    r.first_good.resize(n, 0);
    r.last_good.resize(n, 0);
    r.events.resize(n, 0);
    r.labels.resize(n);
  }
  if (!(t0 >= 0.0 && t0 <= static_cast<double>(h.counts.size()))) f.fail("histogram " + std::to_string(number) + " t0 " + std::to_string(t0) + " is outside its bins");
  r.histograms[n - 1] = h.counts;
  r.t0[n - 1] = static_cast<int>(std::lround(t0));
  r.first_good[n - 1] = fgb;
  r.last_good[n - 1] = lgb;
  std::int64_t sum = 0;
  for (auto c : h.counts) sum += c;
  r.events[n - 1] = static_cast<std::int32_t>(std::min<std::int64_t>(sum, INT32_MAX));
  r.labels[n - 1] = h.title;
}

// Histogram numbers no file entry fills get empty histograms of the common length.
void fill_gaps(RunData& r) {
  std::size_t bins = 0;
  for (const auto& h : r.histograms) bins = std::max(bins, h.size());
  for (auto& h : r.histograms)
    if (h.empty()) h.assign(bins, 0);
}

RunData lem_run(const root::File& f, Tree& t) {
  walk_key(f, "RunInfo", t);
  const Lem& l = t.lem;
  if (!l.found) f.fail("folder 'RunInfo' holds no TLemRunHeader");
  if (l.nhist < 1 || l.nhist > kLemTimeZeros) f.fail("TLemRunHeader number of histograms " + std::to_string(l.nhist) + " is not in 1.." + std::to_string(kLemTimeZeros));
  if (!(l.resolution_ns > 0.0f && std::isfinite(l.resolution_ns))) f.fail("TLemRunHeader time resolution " + std::to_string(l.resolution_ns) + " ns is not positive");
  walk_key(f, "histos", t);
  RunData r;
  r.format = "ROOT-NPP";
  r.run_number = l.run;
  r.title = l.title;
  r.setup = l.setup;
  r.lab = "PSI";
  r.area = "muE4";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g K", static_cast<double>(l.temperature));
  r.temperature = buf;
  std::snprintf(buf, sizeof buf, "%g G", static_cast<double>(l.field));
  r.field = buf;
  r.bin_width_us = static_cast<double>(l.resolution_ns) * 1e-3;
  for (int base : {0, kRootPostPileupOffset})
    for (int i = 0; i < l.nhist; ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "hDecay%02d", base + i);
      auto it = t.histograms.find(name);
      if (it == t.histograms.end()) {
        if (base == 0) f.fail("folder 'histos' has no histogram '" + std::string(name) + "'");
        break;  // no post-pile-up histograms
      }
      const int bins = static_cast<int>(it->second.counts.size());
      add_histogram(f, r, base + i + 1, it->second, l.t0[i], static_cast<int>(l.t0[i]), bins - 1);
    }
  fill_gaps(r);
  return r;
}

RunData musr_root_run(const root::File& f, Tree& t) {
  walk_key(f, "RunHeader", t);
  walk_key(f, "histos", t);
  RunData r;
  r.format = "MUSR-ROOT";
  const std::string nh = text_value(t, "RunInfo/No of Histos");
  if (nh.empty()) f.fail("run header has no 'RunInfo/No of Histos'");
  const int nhist = static_cast<int>(number(f, "RunInfo/No of Histos", nh));
  if (nhist < 1 || nhist > kRootMaxHistogramNumber) f.fail("run header 'No of Histos' " + nh + " is not in 1.." + std::to_string(kRootMaxHistogramNumber));
  if (auto v = text_value(t, "RunInfo/Run Number"); !v.empty()) r.run_number = static_cast<int>(number(f, "RunInfo/Run Number", v));
  r.title = text_value(t, "RunInfo/Run Title");
  r.lab = text_value(t, "RunInfo/Laboratory");
  r.area = text_value(t, "RunInfo/Instrument");
  r.sample = text_value(t, "RunInfo/Sample Name");
  r.temperature = text_value(t, "RunInfo/Sample Temperature");
  r.field = text_value(t, "RunInfo/Sample Magnetic Field");
  r.setup = text_value(t, "RunInfo/Setup");
  // "0.1953125 ns; TDC CAEN V1190": value, unit (ps, ns, us), then a description.
  const std::string res = text_value(t, "RunInfo/Time Resolution");
  double width = 0.0;
  char unit[16] = {};
  if (std::sscanf(res.c_str(), "%lf %15[a-z]", &width, unit) != 2 || !(width > 0.0) || !std::isfinite(width))
    f.fail("run header 'Time Resolution' '" + res + "' is not a positive time");
  const std::string u = unit;
  if (u == "ps" || u == "picosec") r.bin_width_us = width * 1e-6;
  else if (u == "ns" || u == "nanosec") r.bin_width_us = width * 1e-3;
  else if (u == "us" || u == "microsec") r.bin_width_us = width;
  else f.fail("run header 'Time Resolution' unit '" + u + "' is not ps, ns or us");
  std::vector<int> offsets;
  std::stringstream ss(text_value(t, "RunInfo/RedGreen Offsets"));
  for (std::string item; std::getline(ss, item, ';');) offsets.push_back(static_cast<int>(number(f, "RunInfo/RedGreen Offsets", item)));
  if (offsets.empty()) offsets.push_back(0);
  for (int off : offsets)
    for (int j = 1; j <= nhist; ++j) {
      const int n = off + j;
      char name[32], det[32];
      std::snprintf(name, sizeof name, "hDecay%03d", n);
      std::snprintf(det, sizeof det, "Detector%03d", n);
      auto it = t.histograms.find(name);
      if (it == t.histograms.end()) f.fail("folder 'histos' has no histogram '" + std::string(name) + "'");
      const std::string d = det;
      const std::string t0 = text_value(t, d + "/Time Zero Bin"), fgb = text_value(t, d + "/First Good Bin"), lgb = text_value(t, d + "/Last Good Bin");
      add_histogram(f, r, n, it->second, t0.empty() ? 0.0 : number(f, d + "/Time Zero Bin", t0),
                    fgb.empty() ? 0 : static_cast<int>(number(f, d + "/First Good Bin", fgb)),
                    lgb.empty() ? static_cast<int>(it->second.counts.size()) - 1 : static_cast<int>(number(f, d + "/Last Good Bin", lgb)));
    }
  fill_gaps(r);
  return r;
}

}  // namespace

RunData parse_root_run(std::span<const std::uint8_t> bytes, const std::string& where) {
  const root::File f(bytes, where);
  Tree t;
  if (f.find("RunInfo")) return lem_run(f, t);
  if (f.find("RunHeader")) return musr_root_run(f, t);
  f.fail("has neither a 'RunInfo' (LEM) nor a 'RunHeader' (MusrRoot) folder");
}

RunData read_root_run(const std::filesystem::path& path) {
  const std::string bytes = io::input_file_bytes(path, root::kRootMaxBytes, "ROOT data");
  return parse_root_run(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), path.string());
}

}  // namespace tomo::musr
