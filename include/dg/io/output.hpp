// Output of dgsolve: HDF5+XDMF snapshots (snapshot.hpp), HDF5 checkpoints (checkpoint.hpp) and
// CSV logs (csv_log.hpp); this header includes them all. Every function and member of them is
// collective over its communicator unless said otherwise. With parallel HDF5 (DG_HDF5_PARALLEL)
// files are written through MPI-IO with collective transfers; with serial HDF5 the ranks write
// the same single file in turn (token passing), so the bytes are the same.
#pragma once

#include "dg/io/checkpoint.hpp"
#include "dg/io/csv_log.hpp"
#include "dg/io/parallel_io.hpp"
#include "dg/io/snapshot.hpp"
