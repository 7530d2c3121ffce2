// Ctrl-C, SIGTERM and SIGHUP: long work stops within a second with exit 128+signal and leaves
// nothing half-written. Loops poll interrupted() (Progress::step does); a watcher thread ends
// the process itself, after removing the registered staging folders, when they do not.
#pragma once
#include <filesystem>

#include "compute/core/error.hpp"

namespace tomo {

// Thrown by throw_if_interrupted(); main() turns it into exit 128 + signal().
class Interrupted : public Error {
 public:
  explicit Interrupted(int signal);
  int signal() const { return signal_; }

 private:
  int signal_;
};

// Blocks SIGINT/SIGTERM/SIGHUP in this and every later thread and starts the watcher.
// Call first in main(), before any other thread exists.
void install_interrupt_guard();
// Whether the watcher prints its "interrupted" line (default on). Off under mpirun, where a
// signal usually means that mpirun ends the job because another process failed and said why.
void set_interrupt_notice(bool on);
// The signal received, or 0.
int interrupt_signal();
inline bool interrupted() { return interrupt_signal() != 0; }
// For hosts without the guard (the Python module): ask running work to stop as if `signal` had
// come — loops that poll interrupted() throw Interrupted — and forget it once they have.
void request_interrupt(int signal);
void clear_interrupt();
void throw_if_interrupted();

// Folders the watcher removes before ending the process, in the order registered: a staging
// folder with all it holds (Tree), a parent folder the run made only while it is empty
// (IfEmpty). While a CleanupHold lives the watcher waits (a commit moving files into place
// must finish, not be cut in half) and takes no signal.
enum class CleanupKind { Tree, IfEmpty };
int register_cleanup(const std::filesystem::path& dir, CleanupKind kind = CleanupKind::Tree);
void unregister_cleanup(int id);
// Set (under a CleanupHold) once a run's results are in place, cleared when a run starts
// writing: a signal that finds them published says nothing, since no work is left to stop;
// one that comes first is reported and stops the commit (OutputDir::commit checks).
void set_results_published(bool published);
class CleanupHold {
 public:
  CleanupHold();
  ~CleanupHold();
  CleanupHold(const CleanupHold&) = delete;
  CleanupHold& operator=(const CleanupHold&) = delete;
};

}  // namespace tomo
