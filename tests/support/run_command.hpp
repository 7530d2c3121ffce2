// Running a shell command from a test: its exit status and its output (stdout + stderr when
// the command redirects 2>&1); and the mpirun the MPI tests start.
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tomo::test {

struct CommandResult {
  int status;          // the exit status, -1 when killed by a signal
  std::string output;
};

inline CommandResult run_command(const std::string& cmd) {
  CommandResult r{0, {}};
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) r.output += buf.data();
  const int raw = pclose(p);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// $TOMO_MPIEXEC (a carried runtime, tools/mpi-pack.sh), else the build's mpirun (TOMO_MPIEXEC,
// defined for the test binaries that have MPI tests); empty when neither.
inline std::string mpiexec() {
  if (const char* e = std::getenv("TOMO_MPIEXEC"); e && *e) return e;
#ifdef TOMO_MPIEXEC
  return TOMO_MPIEXEC;
#else
  return "";
#endif
}

// How often `what` occurs in `text` (a message printed once, not once per process).
inline int count_occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The environment every test's mpirun runs in: as root in CI containers, more processes than cores.
inline const char* kMpirunEnv = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 ";

}  // namespace tomo::test
