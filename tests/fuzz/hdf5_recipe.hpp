// Structure-aware input for the HDF5 readers: the fuzzer's bytes are decoded into a recipe (which
// datasets and root attributes exist, their types, shapes — declared sizes up to 2^47 values —
// storage layouts, filters and values, NaN and infinities included), libhdf5 writes that
// recipe as a well-formed file, and the reader runs on it in this process. libhdf5 never sees
// corrupt bytes here (the raw-byte targets, through the reader's child process, cover those),
// so every input exercises the readers' own checks, at thousands of inputs per second.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#if defined(TOMO_HAVE_HDF5)
#include <hdf5.h>
#endif

namespace tomo::fuzz::hdf5 {

// One dataset or root attribute of the recipe.
struct Item {
  bool present = false;
  std::uint8_t type = 1;     // f32 f64 i8 u8 i16 u16 i32 u32 i64 u64 string
  std::vector<std::uint32_t> dims;   // rank = size (0: scalar)
  std::vector<std::uint8_t> huge;    // per axis: the dim is multiplied by 65536·(huge & 0x7f + 1)
  std::uint8_t layout = 1;   // compact contiguous chunked chunked+gzip chunked+shuffle+gzip
  bool write = true;
  std::uint8_t mode = 0;     // a·i + b; constant a; special value b-th; the input's bytes
  double a = 1, b = 0;
};

// Little-endian reader over the fuzzer's bytes; past the end everything reads as zero.
class Bytes {
 public:
  Bytes(const std::uint8_t* d, std::size_t n) : d_(d), n_(n) {}
  std::uint8_t u8() { return at_ < n_ ? d_[at_++] : 0; }
  std::uint16_t u16() { return std::uint16_t(u8() | (u8() << 8)); }
  double f64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t(u8()) << (8 * i);
    double x;
    std::memcpy(&x, &v, 8);
    return x;
  }

 private:
  const std::uint8_t* d_;
  std::size_t n_, at_ = 0;
};

inline void put_f64(std::vector<std::uint8_t>& out, double x) {
  std::uint64_t v;
  std::memcpy(&v, &x, 8);
  for (int i = 0; i < 8; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
}

inline Item decode(Bytes& in) {
  Item it;
  it.present = in.u8() & 1;
  it.type = in.u8() % 11;
  const int rank = in.u8() % 6;
  for (int r = 0; r < rank; ++r) {
    it.dims.push_back(in.u16());
    it.huge.push_back(in.u8());
  }
  it.layout = in.u8() % 5;
  it.write = in.u8() & 1;
  it.mode = in.u8() % 4;
  it.a = in.f64();
  it.b = in.f64();
  return it;
}

// The bytes that decode() reads back as `it` (seed inputs are written this way).
inline void encode(const Item& it, std::vector<std::uint8_t>& out) {
  out.push_back(it.present);
  out.push_back(it.type);
  out.push_back(std::uint8_t(it.dims.size()));
  for (std::size_t r = 0; r < it.dims.size(); ++r) {
    out.push_back(std::uint8_t(it.dims[r] & 0xff));
    out.push_back(std::uint8_t(it.dims[r] >> 8));
    out.push_back(r < it.huge.size() ? it.huge[r] : 0);
  }
  out.push_back(it.layout);
  out.push_back(it.write);
  out.push_back(it.mode);
  put_f64(out, it.a);
  put_f64(out, it.b);
}

// A name the reader looks for: a dataset, or an attribute of the root group.
struct Slot {
  const char* name;
  bool attribute;
};

#if defined(TOMO_HAVE_HDF5)

inline std::vector<hsize_t> shape(const Item& it) {
  std::vector<hsize_t> d;
  for (std::size_t r = 0; r < it.dims.size(); ++r) {
    hsize_t n = it.dims[r];
    if (it.huge[r] & 0x80) n *= hsize_t(65536) * ((it.huge[r] & 0x7f) + 1);
    d.push_back(n);
  }
  return d;
}

inline hid_t file_type(std::uint8_t t) {
  const hid_t types[] = {H5T_IEEE_F32LE, H5T_IEEE_F64LE, H5T_STD_I8LE, H5T_STD_U8LE, H5T_STD_I16LE, H5T_STD_U16LE,
                         H5T_STD_I32LE, H5T_STD_U32LE, H5T_STD_I64LE, H5T_STD_U64LE};
  if (t < 10) return H5Tcopy(types[t]);
  const hid_t s = H5Tcopy(H5T_C_S1);
  H5Tset_size(s, 8);
  return s;
}

// The values written: at most kMaxWritten of them, so every input stays fast.
constexpr hsize_t kMaxWritten = 4096;

// |v| as an index below n (0 for NaN, infinities and values beyond 2^60: no conversion overflows).
inline std::uint64_t index_of(double v, std::uint64_t n) {
  const double a = std::fabs(v);
  return a < 1e18 ? static_cast<std::uint64_t>(a) % n : 0;
}

inline std::vector<double> values(const Item& it, hsize_t n, Bytes& rest) {
  static const double special[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                   -std::numeric_limits<double>::infinity(), 1e300, -1e300, 0.0, -1.0, 1e-320,
                                   9.3e18, 4.3e9};
  std::vector<double> v(n);
  for (hsize_t i = 0; i < n; ++i) {
    switch (it.mode) {
      case 0: v[i] = it.a * double(i) + it.b; break;
      case 1: v[i] = it.a; break;
      case 2: v[i] = (i == index_of(it.a, n)) ? special[index_of(it.b, 10)] : it.a; break;
      default: v[i] = rest.f64(); break;
    }
  }
  return v;
}

// One dataset or root attribute written into `file`; a recipe libhdf5 refuses (a chunk over
// its 4 GiB limit, compact data over 64 KiB, ...) is left out, as a writer would have to.
inline void write_item(hid_t file, const char* name, bool attribute, const Item& it, Bytes& rest) {
  if (!it.present) return;
  const std::vector<hsize_t> dims = shape(it);
  hsize_t total = 1;
  bool overflow = false;
  for (hsize_t d : dims) {
    if (d != 0 && total > (hsize_t(1) << 50) / d) overflow = true;
    total *= d;
  }
  if (overflow) return;
  const hid_t space = dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(int(dims.size()), dims.data(), nullptr);
  const hid_t type = file_type(it.type);
  hid_t obj = -1;
  if (attribute) {
    if (total <= 64) obj = H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  } else {
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (it.layout == 0) {
      H5Pset_layout(dcpl, H5D_COMPACT);
    } else if (it.layout >= 2 && !dims.empty()) {
      std::vector<hsize_t> chunk;
      for (hsize_t d : dims) chunk.push_back(std::max<hsize_t>(1, std::min<hsize_t>(d, dims.size() > 3 ? 8 : 64)));
      H5Pset_chunk(dcpl, int(chunk.size()), chunk.data());
      if (it.layout == 4) H5Pset_shuffle(dcpl);
      if (it.layout >= 3) H5Pset_deflate(dcpl, 6);
    }
    obj = H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
  }
  if (obj >= 0 && it.write && it.type < 10 && total <= kMaxWritten) {
    const std::vector<double> v = values(it, total, rest);
    if (attribute) H5Awrite(obj, H5T_NATIVE_DOUBLE, v.data());
    else H5Dwrite(obj, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  }
  if (obj >= 0) attribute ? H5Aclose(obj) : H5Dclose(obj);
  H5Tclose(type);
  H5Sclose(space);
}

// The file the recipe describes, as bytes (empty if libhdf5 could not make it). The slots are
// the names the reader looks for; the bytes left after the recipe feed mode-3 values.
template <std::size_t N>
std::vector<std::uint8_t> build_file(const Slot (&slots)[N], const std::uint8_t* data, std::size_t size) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Bytes in(data, size);
  Item items[N];
  for (std::size_t s = 0; s < N; ++s) items[s] = decode(in);
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_core(fapl, 1 << 16, 0);
  const hid_t file = H5Fcreate("tomo-fuzz-recipe.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  std::vector<std::uint8_t> out;
  if (file < 0) return out;
  for (std::size_t s = 0; s < N; ++s) write_item(file, slots[s].name, slots[s].attribute, items[s], in);
  H5Fflush(file, H5F_SCOPE_GLOBAL);
  const ssize_t n = H5Fget_file_image(file, nullptr, 0);
  if (n > 0) {
    out.resize(std::size_t(n));
    if (H5Fget_file_image(file, out.data(), out.size()) != n) out.clear();
  }
  H5Fclose(file);
  return out;
}

#endif

}  // namespace tomo::fuzz::hdf5
