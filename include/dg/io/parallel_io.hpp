// What the writers of dg/io share: how a shared HDF5 file is written (ParallelIo) and the
// collective creation of an output directory.
#pragma once

#include <mpi.h>

#include <string>

namespace dg::io {

/// How a shared HDF5 file is written. `automatic`: collective MPI-IO when HDF5 is parallel, else
/// ranks in turn. `sequential` forces the ranks-in-turn path (it works with either HDF5, which
/// lets the tests cover it on a parallel build).
enum class ParallelIo { automatic, sequential };

/// Rank 0 creates `directory` (and parents) if missing; collective; throws on failure.
void create_directory(MPI_Comm comm, const std::string& directory);

} // namespace dg::io
