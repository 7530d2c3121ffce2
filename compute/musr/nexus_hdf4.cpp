// NeXus instrument definition 1 through libhdf4's SD interface (run by read_nexus in a child
// process). Datasets are found by name: the first "number" is the run's, "counts" holds the
// histograms with their t0 / good-bin attributes. Its own file: mfhdf.h defines many macros.
#include "compute/musr/nexus.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "compute/core/error.hpp"

#ifdef TOMO_HAVE_HDF4
#include <mfhdf.h>
#endif

namespace tomo::musr {

#ifndef TOMO_HAVE_HDF4
bool nexus_has_hdf4() { return false; }
RunData nexus_hdf4_body(const std::filesystem::path& path, std::uintmax_t) {
  throw InputError("NeXus data '" + path.string() + "': this build has no HDF4 library (NeXus definition 1 files need it)");
}
#else
bool nexus_has_hdf4() { return true; }

namespace {

class Sd {
 public:
  Sd(const std::filesystem::path& p, std::uintmax_t bytes) : where_(p.string()), bytes_(bytes), id_(SDstart(p.c_str(), DFACC_READ)) {
    if (id_ == FAIL) fail("file", "libhdf4 cannot open it");
  }
  ~Sd() {
    if (id_ != FAIL) SDend(id_);
  }
  Sd(const Sd&) = delete;
  Sd& operator=(const Sd&) = delete;
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError("NeXus data '" + where_ + "': " + field + ": " + what);
  }

  struct Info {
    int32 sds = FAIL, rank = 0, type = 0, attrs = 0;
    int32 dims[H4_MAX_VAR_DIMS] = {};
    std::uint64_t n = 0;
  };
  // The first dataset named `name`; sds FAIL when there is none.
  Info find(const char* name) const {
    Info i;
    const int32 index = SDnametoindex(id_, name);
    if (index == FAIL) return i;
    i.sds = SDselect(id_, index);
    char got[H4_MAX_NC_NAME + 1] = {};
    if (i.sds == FAIL || SDgetinfo(i.sds, got, &i.rank, i.dims, &i.type, &i.attrs) == FAIL) fail(name, "cannot be described");
    if (i.rank < 1 || i.rank > 3) fail(name, "rank " + std::to_string(i.rank) + " is not 1..3");
    i.n = 1;
    for (int k = 0; k < i.rank; ++k) {
      if (i.dims[k] <= 0 || std::uint64_t(i.dims[k]) > kNexusMaxCounts || i.n * std::uint64_t(i.dims[k]) > kNexusMaxCounts)
        fail(name, "has more than " + std::to_string(kNexusMaxCounts) + " elements");
      i.n *= std::uint64_t(i.dims[k]);
    }
    if (i.n * 4 > std::uint64_t(bytes_) * 1100) fail(name, std::to_string(i.n) + " elements cannot come from a file of " + std::to_string(bytes_) + " bytes");
    return i;
  }
  std::vector<std::int32_t> ints(const char* name, Info* out = nullptr) const {
    Info i = find(name);
    if (i.sds == FAIL) fail(name, "missing");
    if (i.type != DFNT_INT32) fail(name, "is not a 32-bit integer dataset (type " + std::to_string(i.type) + ")");
    std::vector<std::int32_t> v(i.n);
    int32 start[H4_MAX_VAR_DIMS] = {};
    if (SDreaddata(i.sds, start, nullptr, i.dims, v.data()) == FAIL) fail(name, "cannot be read");
    SDendaccess(i.sds);
    if (out) *out = i;
    return v;
  }
  double number(const char* name) const {
    Info i = find(name);
    if (i.sds == FAIL) fail(name, "missing");
    int32 start[H4_MAX_VAR_DIMS] = {}, one[H4_MAX_VAR_DIMS] = {1, 1, 1};
    double v = NAN;
    if (i.type == DFNT_FLOAT32) {
      float x;
      if (SDreaddata(i.sds, start, nullptr, one, &x) != FAIL) v = x;
    } else if (i.type == DFNT_FLOAT64) {
      if (SDreaddata(i.sds, start, nullptr, one, &v) == FAIL) v = NAN;
    } else if (i.type == DFNT_INT32) {
      std::int32_t x;
      if (SDreaddata(i.sds, start, nullptr, one, &x) != FAIL) v = x;
    }
    SDendaccess(i.sds);
    if (!std::isfinite(v)) fail(name, "is not a number");
    return v;
  }
  std::string text(const char* name) const {
    Info i = find(name);
    if (i.sds == FAIL) return {};
    std::string s;
    if ((i.type == DFNT_CHAR8 || i.type == DFNT_UCHAR8) && i.rank == 1 && i.n <= 4096) {
      s.assign(i.n, '\0');
      int32 start[1] = {0};
      if (SDreaddata(i.sds, start, nullptr, i.dims, s.data()) == FAIL) s.clear();
    }
    SDendaccess(i.sds);
    s.resize(std::strlen(s.c_str()));
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  }
  // Attribute `attr` of dataset `name`: integers, or text.
  std::vector<std::int32_t> int_attr(const char* name, const char* attr) const {
    Info i = find(name);
    if (i.sds == FAIL) fail(name, "missing");
    const int32 a = SDfindattr(i.sds, attr);
    char an[H4_MAX_NC_NAME + 1] = {};
    int32 type = 0, count = 0;
    if (a == FAIL || SDattrinfo(i.sds, a, an, &type, &count) == FAIL) fail(std::string(name) + "@" + attr, "missing");
    if (type != DFNT_INT32 || count < 1 || count > 4096) fail(std::string(name) + "@" + attr, "is not 1..4096 32-bit integers");
    std::vector<std::int32_t> v(static_cast<std::size_t>(count));
    if (SDreadattr(i.sds, a, v.data()) == FAIL) fail(std::string(name) + "@" + attr, "cannot be read");
    SDendaccess(i.sds);
    return v;
  }
  std::string text_attr(const char* name, const char* attr) const {
    Info i = find(name);
    if (i.sds == FAIL) return {};
    const int32 a = SDfindattr(i.sds, attr);
    char an[H4_MAX_NC_NAME + 1] = {};
    int32 type = 0, count = 0;
    std::string s;
    if (a != FAIL && SDattrinfo(i.sds, a, an, &type, &count) != FAIL && type == DFNT_CHAR8 && count > 0 && count <= 4096) {
      s.assign(static_cast<std::size_t>(count), '\0');
      if (SDreadattr(i.sds, a, s.data()) == FAIL) s.clear();
    }
    SDendaccess(i.sds);
    s.resize(std::strlen(s.c_str()));
    return s;
  }

 private:
  std::string where_;
  std::uintmax_t bytes_;
  int32 id_;
};

}  // namespace

RunData nexus_hdf4_body(const std::filesystem::path& path, std::uintmax_t file_bytes) {
  const Sd sd(path, file_bytes);
  const auto idf = sd.ints("idf_version");
  if (idf.size() != 1 || idf[0] != 1) sd.fail("idf_version", std::to_string(idf[0]) + " in an HDF4 file (definition 1 is read)");
  Sd::Info info;
  const auto counts = sd.ints("counts", &info);
  if (info.rank != 2) sd.fail("counts", "rank " + std::to_string(info.rank) + " (histograms × bins expected)");
  const auto histos = static_cast<std::size_t>(info.dims[0]), bins = static_cast<std::size_t>(info.dims[1]);
  RunData f;
  f.format = "NEXUS";
  f.bin_width_us = nexus_time_us(sd.number("resolution"), sd.text_attr("resolution", "units"));
  if (!(f.bin_width_us > 0.0)) sd.fail("resolution", "is not a positive time in fs, ps, ns or us ('" + sd.text_attr("resolution", "units") + "')");
  const auto t0 = sd.int_attr("counts", "t0_bin"), fgb = sd.int_attr("counts", "first_good_bin"), lgb = sd.int_attr("counts", "last_good_bin");
  auto pick = [&](const std::vector<std::int32_t>& v, std::size_t h, const char* field) {
    const std::int32_t x = v.size() == 1 ? v[0] : h < v.size() ? v[h] : -1;
    if (x < 0 || static_cast<std::size_t>(x) > bins) sd.fail(std::string("counts@") + field, "value for histogram " + std::to_string(h + 1) + " is outside its " + std::to_string(bins) + " bins");
    return static_cast<int>(x);
  };
  for (std::size_t h = 0; h < histos; ++h) {
    std::vector<std::int32_t> v(counts.begin() + static_cast<std::ptrdiff_t>(h * bins), counts.begin() + static_cast<std::ptrdiff_t>((h + 1) * bins));
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < bins; ++i) {
      if (v[i] < 0) sd.fail("counts", "histogram " + std::to_string(h + 1) + " bin " + std::to_string(i) + " has a negative count");
      sum += v[i];
    }
    f.t0.push_back(pick(t0, h, "t0_bin"));
    f.first_good.push_back(pick(fgb, h, "first_good_bin"));
    f.last_good.push_back(pick(lgb, h, "last_good_bin"));
    f.events.push_back(static_cast<std::int32_t>(std::min<std::int64_t>(sum, INT32_MAX)));
    f.labels.push_back("");
    f.histograms.push_back(std::move(v));
  }
  f.run_number = sd.ints("number").at(0);
  f.title = sd.text("title");
  f.lab = sd.text("lab");
  f.area = sd.text("beamline");
  f.setup = sd.text("notes");
  char buf[96];
  for (auto [name, out] : {std::pair<const char*, std::string*>{"temperature", &f.temperature}, {"magnetic_field", &f.field}}) {
    if (sd.find(name).sds == FAIL) continue;
    std::snprintf(buf, sizeof buf, "%g %s", sd.number(name), sd.text_attr(name, "units").c_str());
    *out = buf;
  }
  return f;
}
#endif

}  // namespace tomo::musr
