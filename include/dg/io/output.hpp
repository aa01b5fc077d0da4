// Output of dgsolve: HDF5+XDMF snapshots, HDF5 checkpoints and CSV logs. Every function and
// member here is collective over its communicator unless said otherwise. With parallel HDF5
// (DG_HDF5_PARALLEL) files are written through MPI-IO with collective transfers; with serial
// HDF5 the ranks write the same single file in turn (token passing), so the bytes are the same.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dg::io {

/// How a shared HDF5 file is written. `automatic`: collective MPI-IO when HDF5 is parallel, else
/// ranks in turn. `sequential` forces the ranks-in-turn path (it works with either HDF5, which
/// lets the tests cover it on a parallel build).
enum class ParallelIo { automatic, sequential };

/// Snapshots: the solution sampled on an n^3 lattice of points per element (n = subdivisions+1,
/// point (i,j,k) at i + n*(j + n*k), x fastest), as (n-1)^3 linear hexahedra per element.
///
/// `DIR/NAME_XXXXX.h5` holds, rows in rank order (each rank's elements at the prefix sum of the
/// counts before it):
///   /coordinates (npoints, 3) double, /u (npoints) double, one (npoints) dataset per extra field,
///   /connectivity (ncells, 8) int64 in VTK hexahedron order with global point ids,
///   /element_id (nelem) int64: the global id of each element's block of points;
///   attributes time (double), step (int64), index (int).
/// `DIR/NAME.xdmf` (rank 0, rewritten atomically after each snapshot) is a temporal collection of
/// every snapshot written so far, referencing the .h5 files by relative name. Snapshots already
/// in DIR (same NAME and size) are adopted at construction, so a restarted run keeps listing the
/// earlier ones; each write(index) drops the entries >= index.
class SnapshotWriter {
public:
  SnapshotWriter(MPI_Comm comm, std::string directory, std::string name, int points_per_element,
                 int cells_per_element, std::int64_t nelem_global,
                 ParallelIo mode = ParallelIo::automatic);
  ~SnapshotWriter();
  SnapshotWriter(const SnapshotWriter&) = delete;
  SnapshotWriter& operator=(const SnapshotWriter&) = delete;

  /// Writes snapshot `index`. `xyz` is (nlocal, npts, 3), `u` and each extra field
  /// (nlocal, npts), all row-major; nlocal = global_ids.size(). Snapshots with an index >= this
  /// one are dropped from the XDMF collection (a restart rewinds).
  void
  write(int index, double time, long step, const std::vector<std::int64_t>& global_ids,
        const std::vector<double>& xyz, const std::vector<double>& u,
        const std::vector<std::pair<std::string, std::vector<double>>>& extra_point_fields = {});

  /// File name (without directory) of snapshot `index`: NAME_XXXXX.h5.
  std::string file_name(int index) const;
  std::string xdmf_path() const;

private:
  struct Entry {
    double time;
    std::string file;
    std::vector<std::string> fields;
  };
  void write_xdmf() const;
  void adopt_existing();

  MPI_Comm comm_ = MPI_COMM_NULL; // duplicated: token messages never meet the caller's
  std::string directory_, name_;
  int n_ = 0; // points per direction
  int npts_ = 0, ncells_ = 0;
  std::int64_t nelem_global_ = 0;
  ParallelIo mode_;
  std::map<int, Entry> entries_; // rank 0 only
};

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

/// A CSV log written by rank 0 only (other ranks hold an inert object; calls are not collective).
/// Each row is flushed at once so a crashed run keeps its history. Values use %.16e.
class CsvLog {
public:
  /// Creates DIR (if missing) and DIR/NAME.csv with the header. With `append`, an existing file
  /// whose first line is the same header is continued instead (for restarts).
  /// This constructor is collective (rank 0 creates, the others wait and share its status).
  CsvLog(MPI_Comm comm, const std::string& directory, const std::string& name,
         std::vector<std::string> header, bool append = false);
  ~CsvLog();
  CsvLog(const CsvLog&) = delete;
  CsvLog& operator=(const CsvLog&) = delete;

  /// Appends one row (rank 0; a no-op elsewhere). values.size() must equal the header's.
  void row(const std::vector<double>& values);
  const std::string& path() const { return path_; }

private:
  std::FILE* file_ = nullptr;
  std::string path_;
  std::size_t columns_ = 0;
};

/// Rank 0 creates `directory` (and parents) if missing; collective; throws on failure.
void create_directory(MPI_Comm comm, const std::string& directory);

} // namespace dg::io
