// fork + pipe: the child sends {kind, message, payload} and leaves with _exit (no atexit
// handlers, no GL or CUDA teardown); the parent polls the pipe and the interrupt flag.
#include "compute/io/isolated_child.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

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
  std::string reply;
  char buf[1 << 16];
  pollfd ready{fds[0], POLLIN, 0};
  for (;;) {
    if (interrupted()) {  // Ctrl-C: the child's read may take minutes; end it now
      ::kill(pid, SIGKILL);
      ::close(fds[0]);
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      throw_if_interrupted();
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
