// NeXus dispatch: the file's signature chooses HDF4 or HDF5, whose library then runs in a child.
#include "compute/musr/nexus.hpp"

#include <cstring>
#include <fstream>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/musr/isolated_run.hpp"

namespace tomo::musr {

double nexus_time_us(double v, const std::string& u) {
  if (u == "fs" || u == "femto.second" || u == "femto second" || u == "femtoseconds") return v * 1e-9;
  if (u == "ps" || u == "pico.second" || u == "pico second" || u == "picoseconds") return v * 1e-6;
  if (u == "ns" || u == "nano.second" || u == "nano second" || u == "nanoseconds") return v * 1e-3;
  if (u == "us" || u == "micro.second" || u == "micro second" || u == "microseconds") return v;
  return -1.0;
}

RunData read_nexus(const std::filesystem::path& path) {
  const std::uintmax_t size = io::check_input_file(path, kNexusMaxBytes, "NeXus data");
  unsigned char head[8] = {};
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(head), sizeof head);
  static const unsigned char hdf5[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  static const unsigned char hdf4[4] = {0x0e, 0x03, 0x13, 0x01};
  if (in.gcount() == 8 && std::memcmp(head, hdf5, 8) == 0)
    return read_run_isolated(path, "HDF5", [&] { return nexus_hdf5_body(path, size); });
  if (in.gcount() >= 4 && std::memcmp(head, hdf4, 4) == 0)
    return read_run_isolated(path, "HDF4", [&] { return nexus_hdf4_body(path, size); });
  throw InputError("NeXus data '" + path.string() + "': neither an HDF5 nor an HDF4 file (signature)");
}

}  // namespace tomo::musr
