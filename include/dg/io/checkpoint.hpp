// Checkpoints: the modes of every element in one HDF5 file, written atomically and read back on
// any number of ranks (restarts). Collective over a communicator.
#pragma once

#include "dg/io/parallel_io.hpp"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dg::io {

struct CheckpointData {
  double time = 0.0;
  long step = 0;
  int order = 0;
  int nmodes = 0;
  std::string yaml; // the input (after --set) of the run that wrote it
  std::int64_t nelem_global = 0;
  std::vector<std::int64_t> global_ids; // this rank's elements
  std::vector<double> modes;            // (nlocal, nmodes), row i belongs to global_ids[i]
};

/// Writes `/modes` (nelem_global, nmodes) with rows ordered by global element id, and the
/// attributes format = "dgsolve-checkpoint", time, step, order, nmodes, yaml (rank 0's values).
/// The file is written as `path + ".tmp"` and renamed to `path` once every rank has closed it,
/// so `path` is always a complete checkpoint (the previous one, or this one). The global ids of
/// all ranks must together be 0 .. nelem_global-1, each once. Test hook: with the environment
/// variable DG_TEST_KILL_IN_CHECKPOINT=n the n-th call of the process raises SIGKILL after
/// half of each rank's rows are in the temporary file.
void write_checkpoint(MPI_Comm comm, const std::string& path, const CheckpointData& data,
                      ParallelIo mode = ParallelIo::automatic);

/// Reads the rows of `my_global_ids` (in that order) from a checkpoint written on any number of
/// ranks. Throws InputError (the same message on every rank) for a missing file, a file that is
/// not a dgsolve checkpoint, or a checkpoint whose element count differs from the mesh's.
CheckpointData read_checkpoint(MPI_Comm comm, const std::string& path,
                               const std::vector<std::int64_t>& my_global_ids,
                               ParallelIo mode = ParallelIo::automatic);

} // namespace dg::io
