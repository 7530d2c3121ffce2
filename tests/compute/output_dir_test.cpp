// The output directory: staging on the target's filesystem, an all-or-nothing --force commit,
// an unwritable target found before the run, and names of up to 255 bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "compute/core/error.hpp"
#include "compute/io/output_dir.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace tomo {
namespace {

// tests/support/temp_dir.hpp's folder, under the name `path` these tests use.
struct TempDir : test::TempDir {
  fs::path& path = dir;
  TempDir() : test::TempDir("tomo-outdir") { }
};

void write_text(const fs::path& p, const std::string& s) { std::ofstream(p) << s; }
std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(OutputDirStaging, ForceStagesInsideTheTargetSoRenamesNeverCrossFilesystems) {
  TempDir t;
  const fs::path dir = t.path / "mounted";
  fs::create_directory(dir);
  OutputDir od(dir, true);
  const fs::path staged = od.file("report.json");
  // The staging folder is a child of the target: the same filesystem even when the target is a
  // mount point (the container bind-mount case where a sibling's rename failed with EXDEV).
  EXPECT_EQ(staged.parent_path().parent_path(), dir);
  write_text(staged, "new");
  od.commit();
  EXPECT_EQ(listing(dir), std::vector<std::string>{"report.json"});
}

TEST(OutputDirStaging, UnwritableTargetFailsBeforeTheRun) {
  TempDir t;
  write_text(t.path / "a-file", "x");
  // A regular file where the parent directory should be: no run is needed to find that out
  // (a chmod test would not work for root, who runs CI).
  try {
    OutputDir od(t.path / "a-file" / "out", false);
    FAIL() << "accepted an output directory under a file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a-file"), std::string::npos) << e.what();
  }
  EXPECT_THROW(OutputDir(fs::path("/proc/self/out"), true), InputError);
}

TEST(OutputDirStaging, ForceCommitIsAllOrNothing) {
  TempDir t;
  const fs::path dir = t.path / "run";
  fs::create_directories(dir / "slices");
  write_text(dir / "report.json", "old report");
  write_text(dir / "keep.txt", "keep");
  OutputDir od(dir, true);
  write_text(od.file("report.json"), "new report");
  write_text(od.file("volume.nii"), "new volume");
  // A file the commit cannot place: the target is a directory of that name.
  write_text(od.file("slices"), "not a folder");
  EXPECT_THROW(od.commit(), InputError);
  EXPECT_EQ(read_text(dir / "report.json"), "old report");  // nothing was replaced
  EXPECT_FALSE(fs::exists(dir / "volume.nii"));
  EXPECT_EQ(read_text(dir / "keep.txt"), "keep");
}

TEST(OutputDirStaging, ParentsMadeForAFailedRunAreRemoved) {
  TempDir t;
  { OutputDir od(t.path / "out" / "deeper" / "run", false); }  // no commit: the run failed
  EXPECT_TRUE(listing(t.path).empty());
  {
    OutputDir od(t.path / "out" / "run", false);
    write_text(od.file("report.json"), "{}");
    od.commit();
  }
  EXPECT_EQ(read_text(t.path / "out" / "run" / "report.json"), "{}");
}

TEST(OutputDirStaging, NamesOfMaximalLengthAreAccepted) {
  TempDir t;
  for (std::size_t n : {240u, 241u, 255u}) {
    const fs::path dir = t.path / std::string(n, 'x');
    {
      OutputDir od(dir, false);
      write_text(od.file("report.json"), "{}");
      od.commit();
    }
    EXPECT_EQ(read_text(dir / "report.json"), "{}") << n;
    fs::remove_all(dir);
  }
  EXPECT_TRUE(listing(t.path).empty());
}

}  // namespace
}  // namespace tomo
