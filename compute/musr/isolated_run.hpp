// Runs a reader built on a C library that can crash on malformed files (libhdf5, libhdf4) in a
// forked child, as the optoacoustic HDF5 readers do: the child's RunData, InputError or Error
// comes back through a pipe; a child that dies becomes one InputError naming the file.
#pragma once
#include <filesystem>
#include <functional>
#include <string>

#include "compute/musr/psi_bin.hpp"

namespace tomo::musr {

RunData read_run_isolated(const std::filesystem::path& file, const std::string& library, const std::function<RunData()>& read);

// The serialised form the child sends (exposed for tests).
std::string encode_run(const RunData& r);
RunData decode_run(const std::string& bytes);

}  // namespace tomo::musr
