// Output directory of one run: files staged on the target's filesystem and moved in on commit().
#include "compute/io/output_dir.hpp"

#include <algorithm>
#include <atomic>
#include <string>
#include <system_error>
#include <utility>

#include <unistd.h>

#include "compute/core/error.hpp"
#include "compute/core/interrupt.hpp"
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

// A short name of fixed length: the target's own name may use all 255 bytes a name can have.
std::string staging_name() {
  static std::atomic<int> serial{0};
  return ".tomoraster-staging-" + std::to_string(static_cast<long>(::getpid())) + "-" + std::to_string(serial++);
}

const char* kReplaced = ".replaced";  // inside staging_: the files --force replaced, until commit ends

void move(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) throw Error("cannot move '" + from.string() + "' to '" + to.string() + "': " + ec.message());
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
  // Made once now, so an unwritable target fails before the run, and removed again: the run
  // makes it when it writes its first file, after its scene and inputs were read, so a
  // failure or crash before that leaves nothing.
  make_staging();
  drop_staging();
}

void OutputDir::make_staging() {
  if (!staging_.empty()) return;
  std::error_code ec;
  const bool exists = fs::exists(dir_, ec);
  const fs::path parent = dir_.has_parent_path() ? dir_.parent_path() : fs::path(".");
  // The interrupt watcher removes what is registered below if the process must end; taken
  // now, so it never sees a folder made but not yet registered.
  CleanupHold hold;
  set_results_published(false);
  if (!exists) {
    // Parents made here are removed again if the run fails (a failed run leaves nothing).
    for (fs::path d = parent; !d.empty() && d != "." && !fs::exists(fs::symlink_status(d, ec)); d = d.parent_path())
      made_parents_.push_back(d);
    fs::create_directories(parent, ec);
    if (ec) {
      remove_made_parents();
      throw InputError("cannot create parent directory '" + parent.string() + "' of output directory: " + ec.message());
    }
  }
  // Inside an existing target (it may be a mount point: a rename from its parent would cross
  // filesystems) or beside a new one.
  const fs::path staging = (exists ? dir_ : parent) / staging_name();
  fs::remove_all(staging, ec);
  fs::create_directory(staging, ec);
  if (ec) {
    remove_made_parents();
    throw InputError("cannot write to output directory '" + dir_.string() + "': " + ec.message());
  }
  staging_ = staging;
  cleanup_ids_.push_back(register_cleanup(staging_));
  for (const fs::path& d : made_parents_) cleanup_ids_.push_back(register_cleanup(d, CleanupKind::IfEmpty));
}

void OutputDir::drop_staging() {
  CleanupHold hold;
  for (int id : cleanup_ids_) unregister_cleanup(id);
  cleanup_ids_.clear();
  if (!staging_.empty()) {
    std::error_code ec;
    fs::remove_all(staging_, ec);  // only ever the staging area, never the user's files
    if (ec) log_warn("could not remove staging directory '", staging_.string(), "': ", ec.message());
    staging_.clear();
  }
  remove_made_parents();
}

OutputDir::~OutputDir() {
  if (committed_) {
    for (int id : cleanup_ids_) unregister_cleanup(id);
    return;
  }
  drop_staging();
}

void OutputDir::remove_made_parents() {
  std::error_code ec;
  for (const fs::path& d : made_parents_) fs::remove(d, ec);  // deepest first; only if still empty
  made_parents_.clear();
}

fs::path OutputDir::file(const std::string& name) {
  if (committed_) throw Error("OutputDir::file('" + name + "') called after commit()");
  const fs::path rel = fs::path(name).lexically_normal();
  if (name.empty() || rel.is_absolute() || rel.empty() || *rel.begin() == ".." || rel.filename().empty() ||
      *rel.begin() == kReplaced)
    throw Error("output file name '" + name + "' must be a relative path inside the output directory");
  make_staging();
  const fs::path p = staging_ / rel;
  if (rel.has_parent_path()) fs::create_directories(p.parent_path());
  const std::string key = rel.generic_string();
  if (std::find(files_.begin(), files_.end(), key) == files_.end()) files_.push_back(key);
  return p;
}

void OutputDir::commit() {
  if (committed_) return;
  CleanupHold hold;  // an interrupt waits for the moves below to finish
  // A signal taken before this point said "interrupted": nothing may be published after it.
  throw_if_interrupted();
  make_staging();
  std::error_code ec;
  const bool exists = fs::exists(dir_, ec);
  if (exists && !force_) throw InputError(refuse_message(dir_));
  if (!exists) {
    if (staging_.parent_path() == dir_) throw Error("output directory '" + dir_.string() + "' vanished during the run");
    move(staging_, dir_);
  } else {
    if (!fs::is_directory(dir_))
      throw InputError("output directory '" + dir_.string() + "' exists and is not a directory");
    replace_files();
    fs::remove_all(staging_, ec);
  }
  committed_ = true;
  set_results_published(true);  // a signal from now on finds the run done
}

// Every target is checked before anything moves; replaced files are set aside in the staging
// folder and put back, in reverse order, if any later move fails.
void OutputDir::replace_files() {
  std::vector<fs::path> rels;  // listed first: moving entries while iterating is unspecified
  for (auto it = fs::recursive_directory_iterator(staging_); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = it->path().lexically_relative(staging_);
    if (rel == kReplaced) it.disable_recursion_pending();
    else if (!it->is_directory()) rels.push_back(rel);
  }
  for (const fs::path& rel : rels)
    if (fs::is_directory(dir_ / rel))
      throw InputError("cannot write '" + (dir_ / rel).string() + "': a directory of that name exists");

  std::vector<std::pair<fs::path, fs::path>> done;  // renames made, to undo
  std::vector<fs::path> made;                       // directories created, removed again if empty
  auto make_parent = [&](const fs::path& p) {
    for (fs::path d = p.parent_path(); !d.empty() && !fs::exists(d); d = d.parent_path()) made.push_back(d);
    fs::create_directories(p.parent_path());
  };
  try {
    for (const fs::path& rel : rels)
      if (fs::exists(fs::symlink_status(dir_ / rel))) {
        make_parent(staging_ / kReplaced / rel);
        move(dir_ / rel, staging_ / kReplaced / rel);
        done.emplace_back(dir_ / rel, staging_ / kReplaced / rel);
      }
    for (const fs::path& rel : rels) {
      make_parent(dir_ / rel);
      move(staging_ / rel, dir_ / rel);
      done.emplace_back(staging_ / rel, dir_ / rel);
    }
  } catch (...) {
    std::error_code ec;
    for (auto it = done.rbegin(); it != done.rend(); ++it) fs::rename(it->second, it->first, ec);
    std::sort(made.begin(), made.end(), [](const fs::path& a, const fs::path& b) { return a.native().size() > b.native().size(); });
    for (const fs::path& d : made) fs::remove(d, ec);  // only if empty
    throw;
  }
}

}  // namespace tomo
