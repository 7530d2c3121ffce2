// NeXus instrument definition 2 through libhdf5 (run by read_nexus in a child process).
#include "compute/musr/nexus.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "compute/core/error.hpp"

#ifdef TOMO_HAVE_HDF5
#include <hdf5.h>
#endif

namespace tomo::musr {

#ifndef TOMO_HAVE_HDF5
RunData nexus_hdf5_body(const std::filesystem::path& path, std::uintmax_t) {
  throw InputError("NeXus data '" + path.string() + "': this build has no HDF5 library");
}
#else
namespace {

class H5 {
 public:
  H5(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~H5() {
    if (id_ >= 0) close_(id_);
  }
  H5(const H5&) = delete;
  H5& operator=(const H5&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// libhdf5 resolves a symbolic link before opening, which fails for /proc/self/fd/N of a pipe or
// memfd: such a file (already size-checked) is opened as an in-memory image instead.
hid_t open_file(const std::filesystem::path& p, std::uintmax_t bytes) {
  const hid_t f = H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f >= 0) return f;
  std::vector<char> image(bytes);
  std::ifstream in(p, std::ios::binary);
  if (bytes == 0 || !in.read(image.data(), static_cast<std::streamsize>(bytes))) return -1;
  const H5 fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (H5Pset_fapl_core(fapl.get(), 1 << 20, 0) < 0 || H5Pset_file_image(fapl.get(), image.data(), bytes) < 0) return -1;
  return H5Fopen((p.string() + " (in-memory image)").c_str(), H5F_ACC_RDONLY, fapl.get());
}

class Reader {
 public:
  Reader(const std::filesystem::path& p, std::uintmax_t bytes) : where_(p.string()), bytes_(bytes), file_(open_file(p, bytes), H5Fclose) {
    if (!file_.ok()) fail("file", "libhdf5 cannot open it");
  }
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError("NeXus data '" + where_ + "': " + field + ": " + what);
  }
  // Whether every component of `path` exists (H5Lexists needs the parents to exist).
  bool exists(const std::string& path) const {
    for (std::size_t at = path.find('/', 1);; at = path.find('/', at + 1)) {
      const std::string part = path.substr(0, at);
      if (H5Lexists(file_.get(), part.c_str(), H5P_DEFAULT) <= 0) return false;
      if (at == std::string::npos) return true;
    }
  }
  // The dataset's dimensions, at most 3 and at most kNexusMaxCounts elements.
  std::vector<hsize_t> dims(hid_t ds, const std::string& field) const {
    const H5 space(H5Dget_space(ds), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0 || rank > 3) fail(field, "rank " + std::to_string(rank) + " is not 0..3");
    std::vector<hsize_t> d(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space.get(), d.data(), nullptr);
    std::uint64_t n = 1;
    for (auto v : d) {
      if (v == 0 || v > kNexusMaxCounts || n * v > kNexusMaxCounts) fail(field, "has more than " + std::to_string(kNexusMaxCounts) + " elements");
      n *= v;
    }
    // Data stored compressed expand at most about 1000:1 from the file's bytes.
    if (n * 4 > std::uint64_t(bytes_) * 1100) fail(field, std::to_string(n) + " elements cannot come from a file of " + std::to_string(bytes_) + " bytes");
    return d;
  }
  std::vector<std::int32_t> ints(const std::string& path, std::vector<hsize_t>* shape = nullptr) const {
    const H5 ds(H5Dopen2(file_.get(), path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!ds.ok()) fail(path, "cannot be opened");
    const H5 type(H5Dget_type(ds.get()), H5Tclose);
    if (H5Tget_class(type.get()) != H5T_INTEGER) fail(path, "is not an integer dataset");
    const auto d = dims(ds.get(), path);
    std::uint64_t n = 1;
    for (auto v : d) n *= v;
    std::vector<std::int32_t> out(n);
    if (H5Dread(ds.get(), H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) fail(path, "cannot be read as 32-bit integers");
    if (shape) *shape = d;
    return out;
  }
  double number(const std::string& path) const {
    const H5 ds(H5Dopen2(file_.get(), path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!ds.ok()) fail(path, "cannot be opened");
    const auto d = dims(ds.get(), path);
    if (!d.empty() && d[0] != 1) fail(path, "is not a single value");
    double v = 0.0;
    if (H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) < 0 || !std::isfinite(v)) fail(path, "is not a number");
    return v;
  }
  std::string text(const std::string& path, const char* attr = nullptr) const {
    if (!exists(path)) return {};
    const H5 ds(H5Dopen2(file_.get(), path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!ds.ok()) return {};
    if (attr) {
      if (H5Aexists(ds.get(), attr) <= 0) return {};
      const H5 a(H5Aopen(ds.get(), attr, H5P_DEFAULT), H5Aclose);
      const H5 t(H5Aget_type(a.get()), H5Tclose);
      return read_string(t.get(), [&](hid_t mt, void* buf) { return H5Aread(a.get(), mt, buf); }, path + "@" + attr);
    }
    const H5 t(H5Dget_type(ds.get()), H5Tclose);
    return read_string(t.get(), [&](hid_t mt, void* buf) { return H5Dread(ds.get(), mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf); }, path);
  }

 private:
  template <class Read>
  std::string read_string(hid_t t, Read&& read, const std::string& field) const {
    if (H5Tget_class(t) != H5T_STRING) fail(field, "is not text");
    if (H5Tis_variable_str(t) > 0) return {};  // not used by the ISIS files; left empty
    const std::size_t n = H5Tget_size(t);
    if (n == 0 || n > 4096) fail(field, "text of " + std::to_string(n) + " bytes");
    std::string s(n, '\0');
    if (read(t, s.data()) < 0) fail(field, "cannot be read");
    s.resize(std::strlen(s.c_str()));
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  }
  std::string where_;
  std::uintmax_t bytes_;
  H5 file_;
};

// A per-histogram value: one for all, or one per spectrum (per period and spectrum).
int per_histogram(const Reader& r, const std::vector<std::int32_t>& v, std::size_t index, std::size_t spectra, const std::string& field) {
  if (v.size() == 1) return v[0];
  if (index < v.size()) return v[index];
  if (v.size() == spectra) return v[index % spectra];
  r.fail(field, std::to_string(v.size()) + " values for " + std::to_string(index + 1) + " histograms");
}

}  // namespace

RunData nexus_hdf5_body(const std::filesystem::path& path, std::uintmax_t file_bytes) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become one InputError line, not a trace
  const Reader r(path, file_bytes);
  const std::string entry = "/raw_data_1";
  if (!r.exists(entry + "/idf_version")) r.fail(entry + "/idf_version", "missing (not an ISIS muon NeXus file of definition 2)");
  const auto idf = r.ints(entry + "/idf_version");
  if (idf.size() != 1 || idf[0] != 2) r.fail(entry + "/idf_version", std::to_string(idf.empty() ? 0 : idf[0]) + " in an HDF5 file (definition 2 is read)");
  std::string det = entry + "/instrument/detector_1";
  const std::string counts_path = r.exists(det + "/counts") ? det + "/counts" : entry + "/detector_1/counts";
  if (!r.exists(counts_path)) r.fail(det + "/counts", "missing");
  std::vector<hsize_t> shape;
  const auto counts = r.ints(counts_path, &shape);
  if (shape.empty()) r.fail(counts_path, "is a single value, not histograms");
  const std::size_t bins = shape.back();
  const std::size_t spectra = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
  const std::size_t histos = counts.size() / bins;
  RunData f;
  f.format = "NEXUS";
  // Time resolution: histogram_resolution (float) or resolution, in the units they name.
  std::string res_path = r.exists(det + "/histogram_resolution") ? det + "/histogram_resolution" : entry + "/detector_1/histogram_resolution";
  if (!r.exists(res_path)) res_path = det + "/resolution";
  if (!r.exists(res_path)) r.fail(det + "/histogram_resolution", "missing");
  f.bin_width_us = nexus_time_us(r.number(res_path), r.text(res_path, "units"));
  if (!(f.bin_width_us > 0.0)) r.fail(res_path, "is not a positive time in fs, ps, ns or us ('" + r.text(res_path, "units") + "')");
  auto bins_of = [&](const char* name) {
    const std::string p = det + "/" + name;
    if (!r.exists(p)) r.fail(p, "missing");
    return r.ints(p);
  };
  const auto t0 = bins_of("time_zero_bin"), fgb = bins_of("first_good_bin"), lgb = bins_of("last_good_bin");
  for (std::size_t h = 0; h < histos; ++h) {
    std::vector<std::int32_t> v(counts.begin() + static_cast<std::ptrdiff_t>(h * bins), counts.begin() + static_cast<std::ptrdiff_t>((h + 1) * bins));
    for (std::size_t i = 0; i < bins; ++i)
      if (v[i] < 0) r.fail(counts_path, "histogram " + std::to_string(h + 1) + " bin " + std::to_string(i) + " has a negative count");
    const int t = per_histogram(r, t0, h, spectra, det + "/time_zero_bin");
    const int a = per_histogram(r, fgb, h, spectra, det + "/first_good_bin");
    const int b = per_histogram(r, lgb, h, spectra, det + "/last_good_bin");
    if (t < 0 || static_cast<std::size_t>(t) > bins || a < 0 || b < 0 || static_cast<std::size_t>(a) > bins || static_cast<std::size_t>(b) > bins)
      r.fail(det, "histogram " + std::to_string(h + 1) + " t0/first/last good bin " + std::to_string(t) + "/" + std::to_string(a) + "/" + std::to_string(b) +
                      " outside its " + std::to_string(bins) + " bins");
    std::int64_t sum = 0;
    for (auto c : v) sum += c;
    f.t0.push_back(t);
    f.first_good.push_back(a);
    f.last_good.push_back(b);
    f.events.push_back(static_cast<std::int32_t>(std::min<std::int64_t>(sum, INT32_MAX)));
    f.labels.push_back("");
    f.histograms.push_back(std::move(v));
  }
  if (r.exists(entry + "/run_number")) f.run_number = r.ints(entry + "/run_number").at(0);
  f.title = r.text(entry + "/title");
  f.sample = r.text(entry + "/sample/name");
  f.lab = r.text(entry + "/instrument/source/name");
  f.area = r.text(entry + "/instrument/name");
  char buf[96];
  for (auto [name, out] : {std::pair<const char*, std::string*>{"temperature_1", &f.temperature}, {"magnetic_field_1", &f.field}}) {
    const std::string p = entry + "/sample/" + name;
    if (!r.exists(p)) continue;
    std::snprintf(buf, sizeof buf, "%g %s", r.number(p), r.text(p, "units").c_str());
    *out = buf;
  }
  return f;
}
#endif

}  // namespace tomo::musr
