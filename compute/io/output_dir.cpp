// Output directory of one run: files staged in a hidden sibling and moved in on commit().
#include "compute/io/output_dir.hpp"

#include <algorithm>
#include <string>
#include <system_error>

#include <unistd.h>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace fs = std::filesystem;

namespace tomo {
namespace {

// "out/" → "out": the name of the directory is its last non-empty component.
fs::path strip_trailing_separator(fs::path p) {
  p = p.lexically_normal();
  if (p.has_filename()) return p;
  return p.parent_path();
}

std::string refuse_message(const fs::path& dir) {
  return "output directory '" + dir.string() + "' exists; use --force to write into it";
}

}  // namespace

OutputDir::OutputDir(fs::path dir, bool force) : dir_(strip_trailing_separator(std::move(dir))), force_(force) {
  if (dir_.empty() || dir_ == ".") throw InputError("output directory: empty path or '.' is not allowed");
  std::error_code ec;
  const auto st = fs::status(dir_, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st))
      throw InputError("output directory '" + dir_.string() + "' exists and is not a directory");
    if (!force_) throw InputError(refuse_message(dir_));
  }
  const fs::path parent = dir_.has_parent_path() ? dir_.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec) throw InputError("cannot create parent directory '" + parent.string() + "' of output directory: " + ec.message());

  staging_ = parent / ("." + dir_.filename().string() + ".staging-" + std::to_string(static_cast<long>(::getpid())));
  // A leftover of a crashed run with the same pid is ours to clear (the name is private to us).
  fs::remove_all(staging_, ec);
  fs::create_directory(staging_, ec);
  if (ec) throw InputError("cannot create staging directory '" + staging_.string() + "': " + ec.message());
}

OutputDir::~OutputDir() {
  if (committed_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);  // only ever the staging area, never the user's directory
  if (ec) log_warn("could not remove staging directory '", staging_.string(), "': ", ec.message());
}

fs::path OutputDir::file(const std::string& name) {
  if (committed_) throw Error("OutputDir::file('" + name + "') called after commit()");
  const fs::path rel = fs::path(name).lexically_normal();
  if (name.empty() || rel.is_absolute() || rel.empty() || *rel.begin() == ".." || rel.filename().empty())
    throw Error("output file name '" + name + "' must be a relative path inside the output directory");
  const fs::path p = staging_ / rel;
  if (rel.has_parent_path()) fs::create_directories(p.parent_path());
  const std::string key = rel.generic_string();
  if (std::find(files_.begin(), files_.end(), key) == files_.end()) files_.push_back(key);
  return p;
}

void OutputDir::commit() {
  if (committed_) return;
  std::error_code ec;
  const bool exists = fs::exists(dir_, ec);
  if (exists && !force_) throw InputError(refuse_message(dir_));
  if (!exists) {
    fs::rename(staging_, dir_, ec);
    if (ec) throw Error("cannot move staged output to '" + dir_.string() + "': " + ec.message());
    committed_ = true;
    return;
  }
  if (!fs::is_directory(dir_))
    throw InputError("output directory '" + dir_.string() + "' exists and is not a directory");
  // --force into an existing directory: replace same-named files only, keep everything else.
  std::vector<fs::path> staged;  // listed first: moving entries while iterating is unspecified
  for (const auto& e : fs::recursive_directory_iterator(staging_))
    if (!e.is_directory()) staged.push_back(e.path());
  for (const fs::path& src : staged) {
    const fs::path rel = src.lexically_relative(staging_);
    const fs::path target = dir_ / rel;
    if (rel.has_parent_path()) fs::create_directories(target.parent_path());
    if (fs::is_directory(target))
      throw InputError("cannot write '" + target.string() + "': a directory of that name exists");
    fs::rename(src, target, ec);
    if (ec) throw Error("cannot move '" + src.string() + "' to '" + target.string() + "': " + ec.message());
  }
  fs::remove_all(staging_, ec);
  committed_ = true;
}

}  // namespace tomo
