// Data-file lookup and the format dispatch of an msr RUN.
#include "compute/musr/run_file.hpp"

#include <algorithm>
#include <cctype>

#include "compute/core/error.hpp"
#include "compute/musr/mud.hpp"
#include "compute/musr/psi_mdu.hpp"
#include "compute/musr/root_run.hpp"
#include "compute/musr/nexus.hpp"
#include "compute/musr/xy_data.hpp"

namespace tomo::musr {
namespace {

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_file(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::exists(p, ec);  // the reader's gate refuses what is not a regular file
}

}  // namespace

std::string run_format_extension(const std::string& format, const std::string& beamline) {
  const std::string f = upper(format);
  if (f == "PSI-BIN") return "bin";
  if (f == "MUD") return "msr";
  if (f == "MUSR-ROOT" || f == "ROOT-NPP" || f == "ROOT-PPC") return "root";
  if (f == "NEXUS") return "NXS";
  if (f == "PSI-MDU") return "mdu";
  if (f == "ASCII" || f == "DAT") return "dat";
  if (f == "DB") return "db";
  if (f == "MDU-ASCII") return "mdua";
  if (f == "WKM") return lower(beamline) == "mue4" ? "nemu" : beamline;
  return "";
}

std::filesystem::path find_run_file(const MsrFile& msr, const MsrRun& run) {
  const std::string ext = run_format_extension(run.format, run.beamline);
  const std::string where = msr.path.string() + ":" + std::to_string(run.line) + ": ";
  if (ext.empty()) throw InputError(where + "data-file-format '" + run.format + "' is not one musrfit knows");
  std::vector<std::string> names = {run.file + "." + ext, run.file + "." + upper(ext), run.file + "." + lower(ext),
                                    upper(run.file + "." + ext), lower(run.file + "." + ext)};
  std::string tail = lower(ext);
  tail.insert(tail.begin(), '.');  // (GCC 12 -Wrestrict misfires on "." + string)
  if (run.file.size() > tail.size() && lower(run.file.substr(run.file.size() - tail.size())) == tail) names.insert(names.begin(), run.file);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  // Beside the msr file first (every name), then the working directory.
  if (!msr.path.empty())
    for (const auto& n : names)
      if (auto p = msr.path.parent_path() / n; is_file(p)) return p;
  for (const auto& n : names)
    if (is_file(n)) return n;
  throw InputError(where + "data file '" + names.front() + "' not found beside the msr file or in the working directory");
}

RunData read_run_file(const std::filesystem::path& path, const std::string& format) {
  const std::string f = upper(format);
  if (f == "PSI-BIN") return read_psi_bin(path);
  if (f == "MUD") return read_mud(path);
  if (f == "PSI-MDU") return read_psi_mdu(path);
  // musrfit reads all three from the file's own layout (MusrRoot or LEM), whatever the token.
  if (f == "MUSR-ROOT" || f == "ROOT-NPP" || f == "ROOT-PPC") return read_root_run(path);
  if (f == "NEXUS") return read_nexus(path);
  if (is_xy_format(f))  // read by read_xy_file for fittype 8 runs
    throw InputError("data file '" + path.string() + "': data-file-format " + f + " holds x-y data for fittype 8 RUNs, not histograms");
  throw InputError("data file '" + path.string() + "': data-file-format " + f + " is not read by tomoraster (PSI-BIN, PSI-MDU, MUD, MUSR-ROOT, ROOT-NPP, ROOT-PPC, NEXUS are; ASCII, DB, DAT with fittype 8)");
}

}  // namespace tomo::musr
