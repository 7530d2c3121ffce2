// Reads a run in a forked child (compute/io/isolated_child.hpp) where the reader sits on a C
// library that can crash on malformed files (libhdf5, libhdf4): the RunData, InputError or Error
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
