// An output directory for one run. Files are staged in a hidden folder on the target's own
// filesystem (a sibling for a new directory, inside an existing one with `force`) and moved
// into place by commit(), all or nothing; a run that fails or is interrupted leaves nothing
// behind. An existing directory is refused unless `force` (then same-named files are replaced).
// The constructor makes and removes the staging folder once, so an unwritable target fails
// before any work; it is made for good by the first file(), after the run read its inputs.
// A signal that arrives before commit() moves anything stops the commit (Interrupted).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "compute/core/output_format.hpp"

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

  // The formats images are written in (write_image, compute/io/image_output.hpp): set once by a
  // problem's run from the scene's `output_format`; NIfTI only until then.
  void set_image_formats(ImageFormats f) { image_formats_ = f; }
  ImageFormats image_formats() const { return image_formats_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path staging_;  // empty until made
  bool force_;
  bool committed_ = false;
  std::vector<int> cleanup_ids_;  // the interrupt guard removes staging_ and made parents if the process must end

  void make_staging();  // staging_ and the parents of a new target
  void drop_staging();  // removes both again

  std::vector<std::filesystem::path> made_parents_;  // created for a new target, deepest first

  void replace_files();  // --force into an existing directory
  void remove_made_parents();
  std::vector<std::string> files_;
  ImageFormats image_formats_;
};

}  // namespace tomo
