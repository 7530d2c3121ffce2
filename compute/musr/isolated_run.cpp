// fork + pipe, the child dying with its parent (PR_SET_PDEATHSIG) and killed at once on an
// interrupt; the reply is {kind, message, run} with every length checked on decoding.
#include "compute/musr/isolated_run.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>

#include "compute/core/error.hpp"
#include "compute/core/interrupt.hpp"

namespace tomo::musr {
namespace {

template <class T>
void put(std::string& b, const T& v) {
  b.append(reinterpret_cast<const char*>(&v), sizeof(T));
}
void put_text(std::string& b, const std::string& s) {
  put(b, std::uint64_t(s.size()));
  b += s;
}
template <class T>
void put_vec(std::string& b, const std::vector<T>& v) {
  put(b, std::uint64_t(v.size()));
  b.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

class Reply {
 public:
  explicit Reply(const std::string& b) : b_(b) {}
  template <class T>
  T get() {
    T v{};
    need(sizeof(T));
    std::memcpy(&v, b_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::string text() {
    const auto n = get<std::uint64_t>();
    need(n);
    std::string s = b_.substr(at_, n);
    at_ += n;
    return s;
  }
  template <class T>
  std::vector<T> vec() {
    const auto n = get<std::uint64_t>();
    if (n > b_.size() / sizeof(T)) throw Error("isolated read: reply shorter than announced");
    need(n * sizeof(T));
    std::vector<T> v(n);
    std::memcpy(v.data(), b_.data() + at_, n * sizeof(T));
    at_ += n * sizeof(T);
    return v;
  }

 private:
  void need(std::uint64_t n) const {
    if (n > b_.size() - at_) throw Error("isolated read: reply shorter than announced");
  }
  const std::string& b_;
  std::size_t at_ = 0;
};

void write_all(int fd, const std::string& b) {
  for (std::size_t done = 0; done < b.size();) {
    const ssize_t n = ::write(fd, b.data() + done, b.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += std::size_t(n);
  }
}

[[noreturn]] void child(int fd, pid_t parent, const std::function<RunData()>& read) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  std::int32_t kind = 0;
  std::string msg, run;
  try {
    run = encode_run(read());
  } catch (const InputError& e) {
    kind = 1, msg = e.what();
  } catch (const std::exception& e) {
    kind = 2, msg = e.what();
  }
  std::string b;
  put(b, kind);
  put_text(b, msg);
  b += run;
  write_all(fd, b);
  ::_exit(0);
}

}  // namespace

std::string encode_run(const RunData& r) {
  std::string b;
  put(b, r.tdc_resolution);
  put(b, r.bin_width_us);
  put(b, r.run_number);
  for (const auto* s : {&r.sample, &r.temperature, &r.field, &r.orientation, &r.setup, &r.title, &r.lab, &r.area, &r.format}) put_text(b, *s);
  put(b, std::uint64_t(r.histograms.size()));
  for (const auto& h : r.histograms) put_vec(b, h);
  put_vec(b, r.t0);
  put_vec(b, r.first_good);
  put_vec(b, r.last_good);
  put_vec(b, r.events);
  put(b, std::uint64_t(r.labels.size()));
  for (const auto& l : r.labels) put_text(b, l);
  return b;
}

RunData decode_run(const std::string& bytes) {
  Reply in(bytes);
  RunData r;
  r.tdc_resolution = in.get<int>();
  r.bin_width_us = in.get<double>();
  r.run_number = in.get<int>();
  for (auto* s : {&r.sample, &r.temperature, &r.field, &r.orientation, &r.setup, &r.title, &r.lab, &r.area, &r.format}) *s = in.text();
  const auto nh = in.get<std::uint64_t>();
  if (nh > bytes.size()) throw Error("isolated read: reply shorter than announced");
  for (std::uint64_t i = 0; i < nh; ++i) r.histograms.push_back(in.vec<std::int32_t>());
  r.t0 = in.vec<int>();
  r.first_good = in.vec<int>();
  r.last_good = in.vec<int>();
  r.events = in.vec<std::int32_t>();
  const auto nl = in.get<std::uint64_t>();
  if (nl > bytes.size()) throw Error("isolated read: reply shorter than announced");
  for (std::uint64_t i = 0; i < nl; ++i) r.labels.push_back(in.text());
  return r;
}

RunData read_run_isolated(const std::filesystem::path& file, const std::string& library, const std::function<RunData()>& read) {
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
    if (interrupted()) {
      ::kill(pid, SIGKILL);
      ::close(fds[0]);
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      throw_if_interrupted();
    }
    const int r = ::poll(&ready, 1, 50);
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
  Reply in(reply);
  const auto kind = in.get<std::int32_t>();
  const std::string msg = in.text();
  if (kind == 1) throw InputError(msg);
  if (kind != 0) throw Error(msg);
  return decode_run(reply.substr(sizeof(std::int32_t) + sizeof(std::uint64_t) + msg.size()));
}

}  // namespace tomo::musr
