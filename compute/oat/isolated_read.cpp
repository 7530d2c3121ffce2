// fork + pipe: the child serialises the result (kind, message, data) and leaves with _exit (no
// atexit handlers, no GL or CUDA teardown); the parent parses it with size checks. The child
// never outlives the parent: it dies with it (PR_SET_PDEATHSIG), and an interrupted parent
// kills and reaps it at once instead of waiting for a slow read to end.
#include "compute/oat/isolated_read.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <string>

#include "compute/core/error.hpp"
#include "compute/core/interrupt.hpp"
#include "compute/core/log.hpp"

namespace tomo::oat {
namespace {

template <class T>
void put(std::string& b, const T& v) {
  b.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void write_all(int fd, const std::string& b) {
  for (std::size_t done = 0; done < b.size();) {
    const ssize_t n = ::write(fd, b.data() + done, b.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += std::size_t(n);
  }
}

class Reader {
 public:
  explicit Reader(const std::string& b) : b_(b) {}
  template <class T>
  T get() {
    T v{};
    need(sizeof(T));
    std::memcpy(&v, b_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::string text(std::uint64_t n) {
    need(n);
    std::string s = b_.substr(at_, n);
    at_ += n;
    return s;
  }
  void doubles(std::uint64_t n, double* out) {
    if (n > b_.size() / sizeof(double)) throw Error("isolated read: reply shorter than announced");
    need(n * sizeof(double));
    std::memcpy(out, b_.data() + at_, n * sizeof(double));
    at_ += n * sizeof(double);
  }

 private:
  void need(std::uint64_t n) const {
    if (n > b_.size() - at_) throw Error("isolated read: reply shorter than announced");
  }
  const std::string& b_;
  std::size_t at_ = 0;
};

[[noreturn]] void child(int fd, pid_t parent, const std::function<MeasuredData()>& read) {
  // Killed when the parent ends, however it ends; a parent gone before this line is seen here.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  std::string b;
  std::int32_t kind = 0;
  std::string msg;
  MeasuredData d;
  try {
    d = read();
  } catch (const InputError& e) {
    kind = 1, msg = e.what();
  } catch (const std::exception& e) {
    kind = 2, msg = e.what();
  }
  put(b, kind);
  put(b, std::uint64_t(msg.size()));
  b += msg;
  if (kind == 0) {
    put(b, std::uint64_t(d.positions_mm.size()));
    for (const auto& p : d.positions_mm) b.append(reinterpret_cast<const char*>(p.data()), 3 * sizeof(double));
    put(b, std::int32_t(d.samples));
    put(b, d.fs_mhz);
    put(b, d.c0_mm_per_us);
    put(b, std::uint64_t(d.pressure.size()));
    b.append(reinterpret_cast<const char*>(d.pressure.data()), d.pressure.size() * sizeof(double));
  }
  write_all(fd, b);
  ::_exit(0);
}

}  // namespace

MeasuredData read_isolated(const std::filesystem::path& file, const std::function<MeasuredData()>& read) {
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
    child(fds[1], parent, read);
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
    throw InputError(str_cat(file.string(), ": malformed file: the HDF5 library failed reading it (",
                             WIFSIGNALED(status) ? str_cat("signal ", WTERMSIG(status)) : str_cat("exit ", WEXITSTATUS(status)),
                             ")"));
  Reader r(reply);
  const auto kind = r.get<std::int32_t>();
  const std::string msg = r.text(r.get<std::uint64_t>());
  if (kind == 1) throw InputError(msg);
  if (kind != 0) throw Error(msg);
  MeasuredData d;
  const auto q = r.get<std::uint64_t>();
  if (q > reply.size() / (3 * sizeof(double))) throw Error("isolated read: reply shorter than announced");
  d.positions_mm.resize(q);
  for (auto& p : d.positions_mm) r.doubles(3, p.data());
  d.samples = r.get<std::int32_t>();
  d.fs_mhz = r.get<double>();
  d.c0_mm_per_us = r.get<double>();
  const auto n = r.get<std::uint64_t>();
  if (n > reply.size() / sizeof(double)) throw Error("isolated read: reply shorter than announced");
  d.pressure.resize(n);
  r.doubles(n, d.pressure.data());
  return d;
}

}  // namespace tomo::oat
