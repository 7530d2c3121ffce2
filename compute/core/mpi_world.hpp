// The processes of a job started by mpirun (docs/multigpu.md, "Cluster"): the launcher's
// environment says a process is one of several; Open MPI's libmpi is then loaded with dlopen
// (one binary runs with or without MPI installed) and MPI_COMM_WORLD is the ProcessGroup that
// multi-device teams span. MPI carries host data and the NCCL id only; devices talk through NCCL.
#pragma once
#include <string>

#include "compute/core/team.hpp"

namespace tomo {

// What the launcher's environment says: the processes of the job and this one's rank (1 and 0
// when none started it). Open MPI's OMPI_COMM_WORLD_SIZE/RANK, else PMI_SIZE/PMI_RANK.
struct LaunchEnvironment {
  int size = 1;
  int rank = 0;
  std::string variable;  // the variable that said so, for messages
};
LaunchEnvironment launch_environment();

// Whether this build can run as several processes (Open MPI's mpi.h was found: TOMO_WITH_MPI).
bool built_with_mpi();

// Called once by the CLI before any work. Where the environment says there are several
// processes, loads libmpi (libmpi.so.40, or the file named by $TOMO_MPI_LIBRARY) and calls
// MPI_Init_thread; MPI_Finalize runs at exit. UnavailableError when this build has no MPI or
// the library does not load or initialise. One process: nothing. Idempotent.
void start_processes();
// MPI_COMM_WORLD once start_processes() found several processes, else nullptr.
ProcessGroup* process_group();
// This process's rank in the job: MPI's once started, else the environment's (0 without one).
int process_rank();
// With MPI running, ends every process of the job with `code` (MPI_Abort) and does not return;
// otherwise returns `code`.
int abort_processes(int code);

}  // namespace tomo
