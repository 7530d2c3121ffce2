// What a PATATO or k-Wave HDF5 file may ask of the reader: a folder is refused by name; a
// dataset declaring more values than its (compressed) storage can hold, or than one read may
// return, is refused before anything is allocated or inflated; a grid step of 1e30 m is refused.
#include <gtest/gtest.h>

#include "tests/support/input_errors.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/oat/data_io.hpp"
#include "tests/support/temp_dir.hpp"

#if defined(TOMO_HAVE_HDF5)
#include <hdf5.h>
#include <zlib.h>

namespace tomo::oat {
namespace {

using test::message_of;

// A PATATO-like file whose 'raw_data' (1, 1, q, k) float32 is gzip-chunked by (1, 1, chunk_q, k)
// with only its first chunk written, directly, as the deflated bytes of 64 kB of zeros.
void write_sparse_patato(const std::filesystem::path& p, hsize_t q, hsize_t k, hsize_t chunk_q) {
  const hid_t file = H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t dims[4] = {1, 1, q, k}, chunk[4] = {1, 1, chunk_q, k};
  const hid_t space = H5Screate_simple(4, dims, nullptr);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 4, chunk);
  H5Pset_deflate(dcpl, 6);
  const hid_t ds = H5Dcreate2(file, "raw_data", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  std::vector<unsigned char> zeros(65536, 0), packed(compressBound(zeros.size()));
  uLongf packed_size = packed.size();
  compress2(packed.data(), &packed_size, zeros.data(), zeros.size(), 9);
  const hsize_t origin[4] = {0, 0, 0, 0};
  EXPECT_GE(H5Dwrite_chunk(ds, H5P_DEFAULT, 0, origin, packed_size, packed.data()), 0);
  H5Dclose(ds), H5Pclose(dcpl), H5Sclose(space), H5Fclose(file);
}

TEST(Hdf5Limits, AFolderIsRefusedAsAFolder) {
  test::TempDir dir;
  std::filesystem::create_directory(dir.dir / "scan.h5");
  EXPECT_NE(message_of([&] { read_patato(dir.dir / "scan.h5"); }).find("PATATO file '" + (dir.dir / "scan.h5").string() +
                                                                        "': is a folder, not a file"),
            std::string::npos);
  EXPECT_NE(message_of([&] { read_kwave(dir.dir / "scan.h5"); }).find("k-Wave output file '" +
                                                                       (dir.dir / "scan.h5").string() + "': is a folder"),
            std::string::npos);
}

TEST(Hdf5Limits, ACompressedDatasetDeclaringMoreThanItsStorageCanHoldIsRefused) {
  // 4096 × 16384 floats (256 MiB) declared in a few hundred bytes of gzip storage.
  test::TempDir dir;
  write_sparse_patato(dir.dir / "sparse.h5", 4096, 16384, 4096);
  ASSERT_LT(std::filesystem::file_size(dir.dir / "sparse.h5"), 16384u);
  const std::string msg = message_of([&] { read_patato(dir.dir / "sparse.h5"); });
  EXPECT_NE(msg.find("'raw_data' declares 256.0 MiB in "), std::string::npos) << msg;
  EXPECT_NE(msg.find("bytes of compressed storage, more than the 100:1 a compressed dataset may inflate to"),
            std::string::npos)
      << msg;
}

TEST(Hdf5Limits, MoreValuesThanOneReadMayReturnAreRefused) {
  // 2^31 floats in one frame (16 GiB as doubles), in a file of a few kB.
  test::TempDir dir;
  write_sparse_patato(dir.dir / "huge.h5", hsize_t{1} << 15, hsize_t{1} << 16, hsize_t{1} << 12);
  const std::string msg = message_of([&] { read_patato(dir.dir / "huge.h5"); });
  EXPECT_NE(msg.find("'raw_data' is too large (more than 268435456 values)"), std::string::npos) << msg;
}

TEST(Hdf5Limits, AKwaveGridStepOf1e30MetresIsRefused) {
  test::TempDir dir;
  MeasuredData d;
  d.positions_mm = {{2.0, 0.0, -1.0}, {0.0, 3.0, 1.0}};
  d.samples = 4;
  d.fs_mhz = 10;
  d.pressure = {1, 2, 3, 4, 5, 6, 7, 8};
  write_kwave(dir.dir / "k.h5", d, {9, 8, 5}, 1.0);
  const hid_t file = H5Fopen((dir.dir / "k.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t ds = H5Dopen2(file, "dx", H5P_DEFAULT);
  const double huge = 1e30;
  ASSERT_GE(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &huge), 0);
  H5Dclose(ds), H5Fclose(file);
  const std::string msg = message_of([&] { read_kwave(dir.dir / "k.h5"); });
  EXPECT_NE(msg.find("dx, dy, dz (m) and dt (s) must be finite, > 0 and <= 1, got dx = 1e+30"), std::string::npos)
      << msg;
}

}  // namespace
}  // namespace tomo::oat
#endif
