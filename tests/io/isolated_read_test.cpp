// The child process that runs libhdf5 on a user's file (oat's isolated read) never outlives
// its parent: an interrupted parent kills and reaps it at once, and a parent that dies (even
// by SIGKILL) takes it along. Each case runs its "parent" in a forked process of its own.
#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "compute/core/interrupt.hpp"
#include "compute/oat/isolated_read.hpp"

namespace tomo::oat {
namespace {

using Clock = std::chrono::steady_clock;

// A read that tells its process id through `fd`, then takes half a minute.
MeasuredData slow_read(int fd) {
  const pid_t me = ::getpid();
  (void)!::write(fd, &me, sizeof me);
  ::sleep(30);
  return {};
}

// Reads one value from `fd`, waiting at most 5 s; false when none came.
template <class T>
bool read_value(int fd, T& v) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 5000) == 1 && ::read(fd, &v, sizeof v) == static_cast<ssize_t>(sizeof v);
}

// Whether `pid` is gone (or a zombie, which has stopped running) within `ms` milliseconds.
bool gone_within(pid_t pid, int ms) {
  const auto end = Clock::now() + std::chrono::milliseconds(ms);
  do {
    if (::kill(pid, 0) != 0) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z') return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  } while (Clock::now() < end);
  return false;
}

TEST(IsolatedRead, AnInterruptedParentKillsAndReapsTheChildAtOnce) {
  int ids[2], result[2];
  ASSERT_EQ(::pipe(ids), 0);
  ASSERT_EQ(::pipe(result), 0);
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    install_interrupt_guard();
    set_interrupt_notice(false);
    std::thread([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      ::kill(::getpid(), SIGINT);
    }).detach();
    const auto t0 = Clock::now();
    int code = 1;
    try {
      (void)read_isolated("slow.h5", [&] { return slow_read(ids[1]); });
    } catch (const Interrupted& e) {
      code = e.signal() == SIGINT ? 0 : 2;
    }
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    (void)!::write(result[1], &ms, sizeof ms);
    ::_exit(code);
  }
  pid_t child = 0;
  ASSERT_TRUE(read_value(ids[0], child));
  double ms = -1;
  const bool told = read_value(result[0], ms);
  int status = 0;
  ::waitpid(parent, &status, 0);
  EXPECT_TRUE(told) << "the parent never returned from the read";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_LT(ms, 700.0) << "the interrupt was raised at 200 ms";
  EXPECT_TRUE(gone_within(child, 1000)) << "the reading child " << child << " outlived its parent";
  ::kill(child, SIGKILL);
}

TEST(IsolatedRead, TheChildDiesWithItsParent) {
  int ids[2];
  ASSERT_EQ(::pipe(ids), 0);
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    (void)read_isolated("slow.h5", [&] { return slow_read(ids[1]); });
    ::_exit(0);
  }
  pid_t child = 0;
  ASSERT_TRUE(read_value(ids[0], child));
  ::kill(parent, SIGKILL);
  ::waitpid(parent, nullptr, 0);
  EXPECT_TRUE(gone_within(child, 1000)) << "the reading child " << child << " outlived its parent";
  ::kill(child, SIGKILL);
}

}  // namespace
}  // namespace tomo::oat
