// An output directory under the interrupt guard: a signal said "interrupted" means nothing is
// published; one that finds the results published says nothing; a process the watcher ends
// leaves neither staging nor the parent folders the run made. Each case runs in a child
// process (the guard blocks signals process-wide and its watcher may end the process).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "compute/core/interrupt.hpp"
#include "compute/io/output_dir.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace tomo {
namespace {

// Runs `body` in a child with the guard installed and its stderr in `log`; the child's exit
// status (or 1000 + signal when a signal ended it).
int in_child(const fs::path& log, const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    install_interrupt_guard();
    int code = 99;
    try {
      code = body();
    } catch (...) {
      code = 98;
    }
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

void wait_for_flag() {
  for (int i = 0; i < 500 && !interrupted(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

std::string read_text(const fs::path& p) {
  std::stringstream s;
  s << std::ifstream(p).rdbuf();
  return s.str();
}

TEST(OutputDirSignal, AfterInterruptedIsPrintedNothingIsPublished) {
  test::TempDir t("tomo-outsig");
  const fs::path dir = t.dir / "run";
  const int code = in_child(t.dir / "log", [&] {
    OutputDir od(dir, false);
    std::ofstream(od.file("report.json")) << "{}";
    ::kill(::getpid(), SIGINT);  // lands after the run's last check, just before its commit
    wait_for_flag();
    try {
      od.commit();
    } catch (const Interrupted& e) {
      return e.signal() == SIGINT ? 42 : 43;
    }
    return 1;
  });
  EXPECT_EQ(code, 42);
  EXPECT_NE(read_text(t.dir / "log").find("interrupted"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir));
  for (const auto& e : fs::directory_iterator(t.dir)) EXPECT_EQ(e.path().filename(), "log") << e.path();
}

TEST(OutputDirSignal, ASignalAfterTheCommitFindsTheRunDoneAndSaysNothing) {
  test::TempDir t("tomo-outsig");
  const fs::path dir = t.dir / "run";
  const int code = in_child(t.dir / "log", [&] {
    OutputDir od(dir, false);
    std::ofstream(od.file("report.json")) << "{}";
    od.commit();
    ::kill(::getpid(), SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return interrupted() ? 1 : 0;
  });
  EXPECT_EQ(code, 0);
  EXPECT_EQ(read_text(t.dir / "log"), "");
  EXPECT_EQ(read_text(dir / "report.json"), "{}");
}

TEST(OutputDirSignal, WorkThatDoesNotPollLeavesNoStagingAndNoParentFolder) {
  test::TempDir t("tomo-outsig");
  const int code = in_child(t.dir / "log", [&] {
    OutputDir od(t.dir / "made" / "deeper" / "run", false);
    std::ofstream(od.file("data.npy")) << "x";
    ::kill(::getpid(), SIGINT);
    std::this_thread::sleep_for(std::chrono::seconds(5));  // never polls: the watcher ends the process
    return 1;
  });
  EXPECT_EQ(code, 128 + SIGINT);
  EXPECT_FALSE(fs::exists(t.dir / "made"));
}

TEST(OutputDirStaging, NothingIsMadeBeforeTheFirstFile) {
  test::TempDir t("tomo-outsig");
  OutputDir od(t.dir / "made" / "run", false);
  EXPECT_TRUE(fs::is_empty(t.dir));  // a run that fails reading its inputs leaves nothing, even if it crashes
  std::ofstream(od.file("report.json")) << "{}";
  od.commit();
  EXPECT_EQ(read_text(t.dir / "made" / "run" / "report.json"), "{}");
}

}  // namespace
}  // namespace tomo
