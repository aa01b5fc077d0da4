// Snapshots of the solution: one HDF5 file per snapshot, collective over a communicator, and an
// XDMF collection of all of them for ParaView / VisIt.
#pragma once

#include "dg/io/parallel_io.hpp"

#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dg::io {

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

} // namespace dg::io
