// An output directory for one run. Files are staged in a hidden folder on the target's own
// filesystem (a sibling for a new directory, inside an existing one with `force`) and moved
// into place by commit(), all or nothing; a run that fails or is interrupted leaves nothing
// behind. An existing directory is refused unless `force` (then same-named files are replaced).
// The staging folder is made in the constructor, so an unwritable target fails before any work.
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
  void commit();  // throws, with every file as it was before, when a file cannot be placed

  const std::filesystem::path& final_dir() const { return dir_; }
  const std::vector<std::string>& files() const { return files_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path staging_;
  bool force_;
  bool committed_ = false;
  int cleanup_id_ = 0;  // the interrupt guard removes staging_ if the process must end

  std::vector<std::filesystem::path> made_parents_;  // created for a new target, deepest first

  void replace_files();  // --force into an existing directory
  void remove_made_parents();
  std::vector<std::string> files_;
};

}  // namespace tomo
