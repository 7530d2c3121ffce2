// Writers of the PATATO and k-Wave HDF5 layouts read by hdf5_io.cpp: for round-trip tests, fuzz
// seeds and users who want their simulated data in those formats. Written to a temporary name
// and renamed, like every output.
#include <cmath>
#include <cstdint>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/oat/data_io.hpp"

#if defined(TOMO_HAVE_HDF5)
#include <hdf5.h>

namespace tomo::oat {

namespace {

// Creates `path`.tmp, lets `fill` write into it, renames it over `path`.
template <class Fill>
void write_hdf5(const std::filesystem::path& path, Fill&& fill) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  const hid_t f = H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) throw Error(path.string() + ": HDF5 could not create the file");
  try {
    fill(f);
  } catch (...) {
    H5Fclose(f);
    std::filesystem::remove(tmp);
    throw;
  }
  if (H5Fclose(f) < 0) throw Error(path.string() + ": HDF5 could not close the file");
  std::filesystem::rename(tmp, path);
}

template <class T>
void put(hid_t file, const char* name, std::vector<hsize_t> dims, const T* data, hid_t file_type) {
  const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t ds = H5Dcreate2(file, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t mem = std::is_same_v<T, double> ? H5T_NATIVE_DOUBLE
                    : std::is_same_v<T, float> ? H5T_NATIVE_FLOAT
                                               : H5T_NATIVE_ULLONG;
  const herr_t rc = ds >= 0 ? H5Dwrite(ds, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : -1;
  if (ds >= 0) H5Dclose(ds);
  H5Sclose(space);
  if (rc < 0) throw Error(std::string("HDF5: writing '") + name + "' failed");
}

void put_attribute(hid_t file, const char* name, double v) {
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(file, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t rc = a >= 0 ? H5Awrite(a, H5T_NATIVE_DOUBLE, &v) : -1;
  if (a >= 0) H5Aclose(a);
  H5Sclose(space);
  if (rc < 0) throw Error(std::string("HDF5: writing attribute '") + name + "' failed");
}

}  // namespace

void write_patato(const std::filesystem::path& path, const MeasuredData& d) {
  const hsize_t Q = d.positions_mm.size(), K = static_cast<hsize_t>(d.samples);
  if (d.pressure.size() != Q * K) throw Error("write_patato: pressure does not match positions × samples");
  write_hdf5(path, [&](hid_t f) {
    std::vector<float> raw(d.pressure.begin(), d.pressure.end());
    put(f, "raw_data", {1, 1, Q, K}, raw.data(), H5T_IEEE_F32LE);
    std::vector<double> geo;
    for (const Vec3d& p : d.positions_mm)
      for (double x : p) geo.push_back(1e-3 * x);
    put(f, "GEOMETRY", {Q, 3}, geo.data(), H5T_IEEE_F64LE);
    const double wl = 800e-9;
    put(f, "wavelengths", {1}, &wl, H5T_IEEE_F64LE);
    put_attribute(f, "fs", d.fs_mhz * 1e6);
    if (d.c0_mm_per_us > 0) put_attribute(f, "speedofsound", d.c0_mm_per_us * 1e3);
  });
}

void write_kwave(const std::filesystem::path& path, const MeasuredData& d, std::array<int, 3> n, double dx_mm) {
  const hsize_t Q = d.positions_mm.size(), K = static_cast<hsize_t>(d.samples);
  if (d.pressure.size() != Q * K) throw Error("write_kwave: pressure does not match positions × samples");
  std::vector<unsigned long long> mask(Q);
  for (hsize_t q = 0; q < Q; ++q) {
    long long idx[3];
    for (int a = 0; a < 3; ++a) {
      idx[a] = std::llround(d.positions_mm[q][a] / dx_mm) + n[a] / 2;
      if (idx[a] < 0 || idx[a] >= n[a]) throw Error("write_kwave: a position lies outside the grid");
    }
    mask[q] = 1 + static_cast<unsigned long long>(idx[0] + n[0] * (idx[1] + static_cast<long long>(n[1]) * idx[2]));
  }
  write_hdf5(path, [&](hid_t f) {
    std::vector<float> p(Q * K);
    for (hsize_t q = 0; q < Q; ++q)
      for (hsize_t k = 0; k < K; ++k) p[k * Q + q] = static_cast<float>(d.pressure[q * K + k]);
    put(f, "p", {1, K, Q}, p.data(), H5T_IEEE_F32LE);
    put(f, "sensor_mask_index", {1, 1, Q}, mask.data(), H5T_STD_U64LE);
    for (int a = 0; a < 3; ++a) {
      const unsigned long long v = static_cast<unsigned long long>(n[a]);
      put(f, a == 0 ? "Nx" : a == 1 ? "Ny" : "Nz", {1, 1, 1}, &v, H5T_STD_U64LE);
    }
    const unsigned long long nt = K;
    put(f, "Nt", {1, 1, 1}, &nt, H5T_STD_U64LE);
    const float dx = static_cast<float>(dx_mm * 1e-3), dt = static_cast<float>(1e-6 / d.fs_mhz);
    for (const char* name : {"dx", "dy", "dz"}) put(f, name, {1, 1, 1}, &dx, H5T_IEEE_F32LE);
    put(f, "dt", {1, 1, 1}, &dt, H5T_IEEE_F32LE);
    if (d.c0_mm_per_us > 0) {
      const float c = static_cast<float>(d.c0_mm_per_us * 1e3);
      put(f, "c0", {1, 1, 1}, &c, H5T_IEEE_F32LE);
    }
  });
}

}  // namespace tomo::oat

#endif
