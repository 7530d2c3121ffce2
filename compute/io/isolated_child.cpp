// fork + pipe: the child sends {kind, message, payload} and leaves with _exit (no atexit
// handlers, no GL or CUDA teardown); the parent polls the pipe and the interrupt flag.
#include "compute/io/isolated_child.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <system_error>

#include "compute/core/interrupt.hpp"

namespace tomo::io {
namespace {

void write_all(int fd, const std::string& b) {
  for (std::size_t done = 0; done < b.size();) {
    const ssize_t n = ::write(fd, b.data() + done, b.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += std::size_t(n);
  }
}

[[noreturn]] void child(int fd, pid_t parent, const std::function<std::string()>& produce) {
  // Killed when the parent ends, however it ends; a parent gone before this line is seen here.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  std::int32_t kind = 0;
  std::string msg, payload;
  try {
    payload = produce();
  } catch (const InputError& e) {
    kind = 1, msg = e.what();
  } catch (const std::exception& e) {
    kind = 2, msg = e.what();
  }
  ByteWriter w;
  w.put(kind);
  w.text(msg);
  std::string b = w.take();
  b += payload;
  write_all(fd, b);
  ::_exit(0);
}

// How long the child may read before it is stopped: a malformed file can send a library into an
// endless loop (libhdf4 spins on some), and nothing may run unbounded. 5 s plus 1 s per 10 MB of
// file leaves every sane read (milliseconds for a μSR run, a minute for a GB of compressed HDF5)
// far inside it.
std::chrono::steady_clock::duration time_limit(const std::filesystem::path& file) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  const double seconds = 5.0 + (ec ? 0.0 : double(size) / 10e6);
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}

void kill_and_reap(pid_t pid, int fd) {
  ::kill(pid, SIGKILL);
  ::close(fd);
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

std::string run_isolated(const std::filesystem::path& file, const std::string& library, const std::function<std::string()>& produce) {
  int fds[2];
  if (::pipe(fds) != 0) throw Error("pipe failed: " + std::string(std::strerror(errno)));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]), ::close(fds[1]);
    throw Error("fork failed: " + std::string(std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], parent, produce);
  }
  ::close(fds[1]);
  const auto limit = time_limit(file);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::string reply;
  char buf[1 << 16];
  pollfd ready{fds[0], POLLIN, 0};
  for (;;) {
    if (interrupted()) {  // Ctrl-C: the child's read may take minutes; end it now
      kill_and_reap(pid, fds[0]);
      throw_if_interrupted();
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill_and_reap(pid, fds[0]);
      const auto s = std::chrono::duration_cast<std::chrono::seconds>(limit).count();
      throw InputError(file.string() + ": malformed file: the " + library + " library did not finish reading it in " +
                       std::to_string(s) + " s (stopped)");
    }
    const int r = ::poll(&ready, 1, 50);  // the interrupt flag is polled every 50 ms
    if (r == 0 || (r < 0 && errno == EINTR)) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buf, std::size_t(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || reply.empty())
    throw InputError(file.string() + ": malformed file: the " + library + " library failed reading it (" +
                     (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status)) : "exit " + std::to_string(WEXITSTATUS(status))) + ")");
  ByteReader in(reply);
  const auto kind = in.get<std::int32_t>();
  const std::string msg = in.text();
  if (kind == 1) throw InputError(msg);
  if (kind != 0) throw Error(msg);
  return reply.substr(sizeof(std::int32_t) + sizeof(std::uint64_t) + msg.size());
}

}  // namespace tomo::io
