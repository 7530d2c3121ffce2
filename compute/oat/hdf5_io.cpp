// PATATO and k-Wave HDF5 files through libhdf5's C API (Debian libhdf5-dev), optional at build
// time (TOMO_HAVE_HDF5). Every size is checked against limits before anything is allocated and
// every HDF5 failure becomes one InputError naming the file and the dataset.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <type_traits>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/io/input_file.hpp"
#include "compute/oat/data_io.hpp"
#include "compute/oat/hdf5_here.hpp"
#include "compute/oat/isolated_read.hpp"

#if defined(TOMO_HAVE_HDF5)
#include <hdf5.h>
#endif

namespace tomo::oat {

#if !defined(TOMO_HAVE_HDF5)

bool have_hdf5() { return false; }
namespace {
[[noreturn]] void no_hdf5(const std::filesystem::path& p) {
  throw UnavailableError(p.string() + ": this build has no HDF5 support (install libhdf5-dev and reconfigure)");
}
}  // namespace
MeasuredData read_patato(const std::filesystem::path& p, int, int) { no_hdf5(p); }
void write_patato(const std::filesystem::path& p, const MeasuredData&) { no_hdf5(p); }
MeasuredData read_kwave(const std::filesystem::path& p, const std::filesystem::path&) { no_hdf5(p); }
MeasuredData read_patato_in_process(const std::filesystem::path& p, int, int) { no_hdf5(p); }
MeasuredData read_kwave_in_process(const std::filesystem::path& p) { no_hdf5(p); }
void write_kwave(const std::filesystem::path& p, const MeasuredData&, std::array<int, 3>, double) { no_hdf5(p); }

#else

bool have_hdf5() { return true; }

namespace {

// The most values one read may return: 2 GiB of doubles, far beyond any scan (PATATO frames
// are detectors × samples, ~10^6; k-Wave's p rarely beyond 10^8).
constexpr hsize_t kMaxElements = hsize_t(1) << 28;
// Compressed data inflate to at most this many times their stored bytes: real pressure traces
// compress a few times, deflate's own limit (1032:1) only for constant data; a dataset asking
// for more than its storage can plausibly hold is refused before it is read.
constexpr double kMaxFilterRatio = 100.0;
// Small datasets (scalars, compact layout) are never refused for their storage.
constexpr double kStorageSlack = 65536.0;
// The file itself: anything larger than this is not one scan.
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t(256) << 30;

// One HDF5 handle, closed by its own close function.
class Hid {
 public:
  Hid(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Hid() {
    if (id_ >= 0) close_(id_);
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void quiet_hdf5() {
  static const bool done = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become our exceptions, not stderr
    return true;
  }();
  (void)done;
}

struct File {
  File(std::string n, hid_t h) : name(std::move(n)), id(h, H5Fclose) {}
  std::string name;
  Hid id;
};

// HDF5 resolves a symbolic link to its real path before opening, which fails for
// /proc/self/fd/N of a pipe or memfd (process substitution, the fuzzers): such a file, up to
// kMaxImage bytes, is opened as an in-memory image under a name that is no link.
constexpr std::uintmax_t kMaxImage = std::uintmax_t(1) << 30;

hid_t open_image(const std::filesystem::path& p) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(p, ec);
  if (ec || size == 0 || size > kMaxImage) return -1;
  std::vector<char> bytes(size);
  std::ifstream in(p, std::ios::binary);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size))) return -1;
  Hid fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (H5Pset_fapl_core(fapl.get(), 1 << 20, 0) < 0 || H5Pset_file_image(fapl.get(), bytes.data(), size) < 0) return -1;
  const std::string name = p.string() + " (in-memory image)";
  return H5Fopen(name.c_str(), H5F_ACC_RDONLY, fapl.get());
}

std::unique_ptr<File> open_file(const std::filesystem::path& p, std::string_view what) {
  io::check_input_file(p, kMaxFileBytes, what);
  quiet_hdf5();
#if H5_VERSION_GE(1, 12, 0)
  const htri_t is_hdf5 = H5Fis_accessible(p.c_str(), H5P_DEFAULT);
#else
  const htri_t is_hdf5 = H5Fis_hdf5(p.c_str());
#endif
  if (is_hdf5 <= 0)
    throw InputError(p.string() + ": not an HDF5 file (or not readable)");
  auto f = std::make_unique<File>(p.string(), H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!f->id.ok()) f = std::make_unique<File>(p.string(), open_image(p));
  if (!f->id.ok()) throw InputError(p.string() + ": HDF5 could not open it");
  return f;
}

bool has_dataset(const File& f, const char* name) {
  return H5Lexists(f.id.get(), name, H5P_DEFAULT) > 0 && H5Oexists_by_name(f.id.get(), name, H5P_DEFAULT) > 0;
}

// A numeric dataset read whole (or the hyperslab `start`/`count`) as T, with its dims.
// libhdf5 1.10 trusts the storage addresses it finds in a file: a corrupt address makes
// H5Dread copy from outside the file (a crash the fuzzer found). So every byte a dataset will
// be read from must lie inside the file: contiguous data by its offset and size, chunked data
// chunk by chunk; compact data lives in the object header that was already parsed.
void require_stored_in_file(const File& f, const char* name, hid_t ds, hid_t type, const std::vector<hsize_t>& dims) {
  hsize_t file_size = 0;
  const auto corrupt = [&] { return InputError(f.name + ": '" + name + "' points outside the file (corrupt or truncated)"); };
  if (H5Fget_filesize(f.id.get(), &file_size) < 0) throw corrupt();
  Hid dcpl(H5Dget_create_plist(ds), H5Pclose);
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  if (layout == H5D_COMPACT) return;
  if (layout == H5D_CONTIGUOUS) {
    unsigned __int128 bytes = H5Tget_size(type);
    for (hsize_t d : dims) bytes *= d;
    const haddr_t off = H5Dget_offset(ds);
    if (off == HADDR_UNDEF || off > file_size || bytes > file_size - off) throw corrupt();
    return;
  }
  if (layout != H5D_CHUNKED) throw InputError(f.name + ": '" + name + "' has a storage layout this reader does not take");
  Hid space(H5Dget_space(ds), H5Sclose);
  hsize_t chunks = 0;
  if (H5Dget_num_chunks(ds, space.get(), &chunks) < 0 || chunks > kMaxElements) throw corrupt();
  for (hsize_t c = 0; c < chunks; ++c) {
    haddr_t off = 0;
    hsize_t size = 0;
    unsigned mask = 0;
    if (H5Dget_chunk_info(ds, space.get(), c, nullptr, &mask, &off, &size) < 0) throw corrupt();
    if (off == HADDR_UNDEF || off > file_size || size > file_size - off) throw corrupt();
  }
}

// The dataset's declared bytes against what its storage can hold: the stored bytes themselves
// without a filter, kMaxFilterRatio times them with one (gzip, szip, ...). Unwritten chunks
// (read as fill values) hold nothing. Checked before a byte is allocated or inflated.
void require_plausible_size(const File& f, const char* name, hid_t ds, hid_t type, const std::vector<hsize_t>& dims) {
  double declared = static_cast<double>(H5Tget_size(type));
  for (hsize_t d : dims) declared *= static_cast<double>(d);
  Hid dcpl(H5Dget_create_plist(ds), H5Pclose);
  if (!dcpl.ok()) throw InputError(f.name + ": '" + name + "' has no readable creation properties");
  const int filters = H5Pget_nfilters(dcpl.get());
  const double stored = static_cast<double>(H5Dget_storage_size(ds));
  const double ratio = filters > 0 ? kMaxFilterRatio : 1.0;
  if (declared > stored * ratio + kStorageSlack)
    throw InputError(str_cat(f.name, ": '", name, "' declares ", io::byte_count(std::uintmax_t(declared)), " in ",
                             io::byte_count(std::uintmax_t(stored)), " of ", filters > 0 ? "compressed " : "",
                             "storage, more than ", filters > 0 ? "the 100:1 a compressed dataset may inflate to"
                                                                : "its stored bytes hold"));
}

template <class T>
std::vector<T> read_numeric(const File& f, const char* name, std::vector<hsize_t>* dims_out,
                            const std::vector<hsize_t>& start = {}, const std::vector<hsize_t>& count = {}) {
  if (!has_dataset(f, name)) throw InputError(f.name + ": no dataset '" + std::string(name) + "'");
  Hid ds(H5Dopen2(f.id.get(), name, H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) throw InputError(f.name + ": '" + name + "' is not a dataset");
  Hid type(H5Dget_type(ds.get()), H5Tclose);
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls != H5T_FLOAT && cls != H5T_INTEGER) throw InputError(f.name + ": '" + name + "' is not numeric");
  Hid space(H5Dget_space(ds.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0 || rank > 8) throw InputError(f.name + ": '" + name + "' has an unsupported shape");
  std::vector<hsize_t> dims(rank);
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  if (dims_out) *dims_out = dims;
  const std::vector<hsize_t>& n = count.empty() ? dims : count;
  hsize_t total = 1;
  for (hsize_t d : n) {
    if (d > kMaxElements || (d > 0 && total > kMaxElements / d))
      throw InputError(str_cat(f.name, ": '", name, "' is too large (more than ", kMaxElements, " values)"));
    total *= d;
  }
  if (!start.empty()) {
    if (start.size() != dims.size()) throw InputError(f.name + ": '" + name + "' has an unexpected rank");
    for (std::size_t a = 0; a < dims.size(); ++a)
      if (start[a] + n[a] > dims[a]) throw InputError(f.name + ": '" + name + "' is smaller than expected");
    H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, n.data(), nullptr);
  }
  if (total == 0) return std::vector<T>{};
  require_plausible_size(f, name, ds.get(), type.get(), dims);
  require_stored_in_file(f, name, ds.get(), type.get(), dims);
  std::vector<T> out(total);
  Hid mem(H5Screate_simple(static_cast<int>(n.size()), n.data(), nullptr), H5Sclose);
  const hid_t native = std::is_same_v<T, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_ULLONG;
  if (H5Dread(ds.get(), native, mem.get(), space.get(), H5P_DEFAULT, out.data()) < 0)
    throw InputError(f.name + ": reading '" + name + "' failed (truncated or corrupt file?)");
  return out;
}

std::vector<hsize_t> dataset_dims(const File& f, const char* name) {
  if (!has_dataset(f, name)) throw InputError(f.name + ": no dataset '" + std::string(name) + "'");
  Hid ds(H5Dopen2(f.id.get(), name, H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) throw InputError(f.name + ": '" + name + "' is not a dataset");
  Hid space(H5Dget_space(ds.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0 || rank > 8) throw InputError(f.name + ": '" + name + "' has an unsupported shape");
  std::vector<hsize_t> dims(rank);
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return dims;
}

template <class T>
T read_scalar(const File& f, const char* name) {
  std::vector<hsize_t> dims;
  const auto v = read_numeric<T>(f, name, &dims);
  if (v.size() != 1) throw InputError(f.name + ": '" + name + "' must hold one value, has " + std::to_string(v.size()));
  return v[0];
}

// A numeric attribute of the root group; `found` false when absent.
double read_root_attribute(const File& f, const char* name, bool* found) {
  *found = H5Aexists(f.id.get(), name) > 0;
  if (!*found) return 0;
  Hid a(H5Aopen(f.id.get(), name, H5P_DEFAULT), H5Aclose);
  Hid space(H5Aget_space(a.get()), H5Sclose);
  Hid type(H5Aget_type(a.get()), H5Tclose);
  const H5T_class_t cls = H5Tget_class(type.get());
  if (!a.ok() || H5Sget_simple_extent_npoints(space.get()) != 1 || (cls != H5T_FLOAT && cls != H5T_INTEGER))
    throw InputError(f.name + ": attribute '" + name + "' must be one number");
  double v = 0;
  if (H5Aread(a.get(), H5T_NATIVE_DOUBLE, &v) < 0) throw InputError(f.name + ": attribute '" + name + "' unreadable");
  return v;
}

void require_finite(const std::vector<double>& v, const std::string& what) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) throw InputError(str_cat(what, ": value ", i, " is not finite"));
}

MeasuredData read_patato_here(const std::filesystem::path& path, int frame, int wavelength) {
  const auto f = open_file(path, "PATATO file");
  const std::vector<hsize_t> dims = dataset_dims(*f, "raw_data");
  if (dims.size() != 4)
    throw InputError(f->name + ": 'raw_data' must be 4-D (frames, wavelengths, detectors, samples)");
  if (frame < 0 || hsize_t(frame) >= dims[0] || wavelength < 0 || hsize_t(wavelength) >= dims[1])
    throw InputError(str_cat(f->name, ": frame ", frame, " / wavelength ", wavelength, " outside 'raw_data' of ",
                             dims[0], " frames and ", dims[1], " wavelengths"));
  if (dims[2] < 1 || dims[3] < 2 || dims[2] > (1u << 24) || dims[3] > (1u << 24))
    throw InputError(str_cat(f->name, ": 'raw_data' has ", dims[2], " detectors and ", dims[3], " samples"));
  MeasuredData d;
  d.pressure = read_numeric<double>(*f, "raw_data", nullptr, {hsize_t(frame), hsize_t(wavelength), 0, 0},
                                    {1, 1, dims[2], dims[3]});
  require_finite(d.pressure, f->name + " 'raw_data'");
  d.samples = static_cast<int>(dims[3]);
  std::vector<hsize_t> gd;
  const auto geo = read_numeric<double>(*f, "GEOMETRY", &gd);
  if (gd.size() != 2 || gd[0] != dims[2] || gd[1] != 3)
    throw InputError(str_cat(f->name, ": 'GEOMETRY' must be (", dims[2], ", 3) to match 'raw_data'"));
  require_finite(geo, f->name + " 'GEOMETRY'");
  d.positions_mm.resize(dims[2]);
  for (std::size_t q = 0; q < dims[2]; ++q) {
    d.positions_mm[q] = {1e3 * geo[3 * q], 1e3 * geo[3 * q + 1], 1e3 * geo[3 * q + 2]};
    for (double x : d.positions_mm[q])  // finite in metres, but not once in mm
      if (!std::isfinite(x)) throw InputError(str_cat(f->name, ": 'GEOMETRY' row ", q, " is not finite in mm"));
  }
  bool found = false;
  const double fs = read_root_attribute(*f, "fs", &found);
  if (!found) throw InputError(f->name + ": no root attribute 'fs' (sampling rate in Hz)");
  if (!(fs > 0) || !std::isfinite(fs)) throw InputError(str_cat(f->name, ": 'fs' must be > 0 Hz, got ", fs));
  d.fs_mhz = fs * 1e-6;
  const double c = read_root_attribute(*f, "speedofsound", &found);
  if (found) {
    if (!(c > 0) || !std::isfinite(c)) throw InputError(str_cat(f->name, ": 'speedofsound' must be > 0 m/s, got ", c));
    d.c0_mm_per_us = c * 1e-3;
  }
  return d;
}

MeasuredData read_kwave_here(const std::filesystem::path& output, const std::filesystem::path& input) {
  const auto out = open_file(output, "k-Wave output file");
  const auto in = input.empty() ? nullptr : open_file(input, "k-Wave input file");
  const File& grid = (in && !has_dataset(*out, "sensor_mask_index")) ? *in : *out;
  const auto nx = read_scalar<unsigned long long>(grid, "Nx"), ny = read_scalar<unsigned long long>(grid, "Ny"),
             nz = read_scalar<unsigned long long>(grid, "Nz");
  if (nx < 1 || ny < 1 || nz < 1 || nx > 65536 || ny > 65536 || nz > 65536)
    throw InputError(str_cat(grid.name, ": grid ", nx, "×", ny, "×", nz, " is outside 1..65536 per axis"));
  const double dx = read_scalar<double>(grid, "dx"), dy = read_scalar<double>(grid, "dy");
  const double dz = nz > 1 ? read_scalar<double>(grid, "dz") : dx;
  const double dt = read_scalar<double>(grid, "dt");
  // Metres and seconds: a grid step beyond 1 m or a time step beyond 1 s is no acoustic scan
  // (and 1e30 m would put the transducers beyond any finite image).
  for (double v : {dx, dy, dz, dt})
    if (!(v > 0 && v <= 1.0))
      throw InputError(str_cat(grid.name, ": dx, dy, dz (m) and dt (s) must be finite, > 0 and <= 1, got dx = ", dx,
                               ", dy = ", dy, ", dz = ", dz, ", dt = ", dt));
  std::vector<hsize_t> pd;
  const auto p = read_numeric<double>(*out, "p", &pd);
  hsize_t nt = 0, ns = 0;
  if (pd.size() == 3 && pd[0] == 1) nt = pd[1], ns = pd[2];
  else if (pd.size() == 2) nt = pd[0], ns = pd[1];
  else throw InputError(out->name + ": 'p' must be (Nsens, Nt) as k-Wave writes it (stored 1×Nt×Nsens)");
  if (nt < 2 || ns < 1 || nt > (1u << 24)) throw InputError(str_cat(out->name, ": 'p' has ", ns, " sensors and ", nt, " samples"));
  require_finite(p, out->name + " 'p'");
  const auto mask = read_numeric<unsigned long long>(grid, "sensor_mask_index", nullptr);
  if (mask.size() != ns)
    throw InputError(str_cat(grid.name, ": 'sensor_mask_index' has ", mask.size(), " entries, 'p' has ", ns, " sensors"));
  MeasuredData d;
  d.samples = static_cast<int>(nt);
  d.fs_mhz = 1e-6 / dt;
  d.positions_mm.resize(ns);
  for (std::size_t q = 0; q < ns; ++q) {
    if (mask[q] < 1 || mask[q] > nx * ny * nz)
      throw InputError(str_cat(grid.name, ": 'sensor_mask_index' entry ", q, " = ", mask[q], " is outside 1..", nx * ny * nz));
    const unsigned long long i0 = mask[q] - 1, i = i0 % nx, j = (i0 / nx) % ny, k = i0 / (nx * ny);
    d.positions_mm[q] = {1e3 * dx * (double(i) - double(nx / 2)), 1e3 * dy * (double(j) - double(ny / 2)),
                         1e3 * dz * (double(k) - double(nz / 2))};
  }
  d.pressure.resize(ns * nt);
  for (std::size_t q = 0; q < ns; ++q)
    for (std::size_t k = 0; k < nt; ++k) d.pressure[q * nt + k] = p[k * ns + q];
  const File* medium = in ? in.get() : out.get();
  if (has_dataset(*medium, "c0")) {
    std::vector<hsize_t> cd;
    const auto c = read_numeric<double>(*medium, "c0", &cd);
    if (c.size() == 1) {
      if (!(c[0] > 0) || !std::isfinite(c[0])) throw InputError(medium->name + ": 'c0' must be > 0 m/s");
      d.c0_mm_per_us = c[0] * 1e-3;
    } else {
      log_warn(medium->name, ": heterogeneous 'c0' ignored; the scene's oat.c0_mm_per_us is used");
    }
  }
  return d;
}

}  // namespace

// libhdf5 runs on the user's file in a child process only (compute/oat/isolated_read.hpp).
MeasuredData read_patato(const std::filesystem::path& path, int frame, int wavelength) {
  return read_isolated(path, [&] { return read_patato_here(path, frame, wavelength); });
}

MeasuredData read_kwave(const std::filesystem::path& output, const std::filesystem::path& input) {
  return read_isolated(output, [&] { return read_kwave_here(output, input); });
}

MeasuredData read_patato_in_process(const std::filesystem::path& path, int frame, int wavelength) {
  return read_patato_here(path, frame, wavelength);
}

MeasuredData read_kwave_in_process(const std::filesystem::path& output) { return read_kwave_here(output, {}); }

#endif

}  // namespace tomo::oat
