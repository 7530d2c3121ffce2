// The data file of an msr RUN: found as musrfit finds it and read by its format's reader into
// the common in-memory run (RunData, psi_bin.hpp).
#pragma once
#include <filesystem>
#include <string>

#include "compute/musr/msr.hpp"
#include "compute/musr/psi_bin.hpp"

namespace tomo::musr {

// The extension musrfit appends for a RUN's data-file-format token (any case): PSI-BIN "bin",
// MUD "msr", MUSR-ROOT / ROOT-NPP / ROOT-PPC "root", NEXUS "NXS", PSI-MDU "mdu", ASCII and DAT
// "dat", DB "db", MDU-ASCII "mdua", WKM the beamline ("nemu" on mue4). Empty for an unknown token.
std::string run_format_extension(const std::string& format, const std::string& beamline);

// The name as written with the extension appended (as written, upper- and lower-case), or the
// name itself when it already ends in the extension; beside the msr file first, then relative
// to the working directory. InputError naming the msr line and every name tried when none exists.
std::filesystem::path find_run_file(const MsrFile& msr, const MsrRun& run);

// Reads `path` as `format` (the RUN's token). Formats whose reader is missing, and the x-y
// formats that are not histograms, are refused with one line.
RunData read_run_file(const std::filesystem::path& path, const std::string& format);

}  // namespace tomo::musr
