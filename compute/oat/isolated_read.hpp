// Runs a reader of untrusted files in a child process: libhdf5 1.10 crashes, overflows or asks
// for terabytes on malformed files (the fuzzers found all three inside H5Dread, H5Aexists and its
// metadata cache), which no check before the call can rule out. A child that dies becomes one
// InputError naming the file; the parent never runs libhdf5 on the file itself.
#pragma once
#include <filesystem>
#include <functional>

#include "compute/oat/data_io.hpp"

namespace tomo::oat {

// read() in a forked child; its MeasuredData (or its InputError/Error) comes back through a pipe.
MeasuredData read_isolated(const std::filesystem::path& file, const std::function<MeasuredData()>& read);

}  // namespace tomo::oat
