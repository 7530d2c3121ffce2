// An output directory for one run. Files are staged in a hidden sibling directory
// and moved into place by commit(); a run that fails leaves nothing behind.
// An existing directory is refused unless `force` (then same-named files are replaced).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace tomo {

class OutputDir {
 public:
  OutputDir(std::filesystem::path dir, bool force);
  ~OutputDir();  // removes the staging directory if commit() was not reached
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  // Path inside the staging area to write `name` to; records it for the listing.
  std::filesystem::path file(const std::string& name);
  void commit();

  const std::filesystem::path& final_dir() const { return dir_; }
  const std::vector<std::string>& files() const { return files_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path staging_;
  bool force_;
  bool committed_ = false;
  std::vector<std::string> files_;
};

}  // namespace tomo
