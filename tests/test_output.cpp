// Output layer under MPI: snapshots written by all ranks read back at the right offsets (both the
// collective MPI-IO path and the ranks-in-turn path), checkpoints ordered by global id read back
// on another distribution, atomic renames, clear errors, CSV logs.
#include "catch.hpp"
#include "dg/core/error.hpp"
#include "dg/io/output.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using dg::io::ParallelIo;

namespace {

int comm_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int comm_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// A fresh directory per test and rank count (ctest may run the np1..np4 jobs concurrently).
std::string test_dir(const std::string& name) {
  const fs::path dir =
      fs::path(DG_BINARY_DIR) / "test_tmp" / (name + "_np" + std::to_string(comm_size()));
  if (comm_rank() == 0) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir.string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Reads a whole dataset with the HDF5 C API (rank 0 only, after the writers are done).
template <class T>
std::vector<T> read_all(const std::string& file, const char* name, hid_t type) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  REQUIRE(d >= 0);
  const hid_t s = H5Dget_space(d);
  std::vector<T> v(std::size_t(H5Sget_simple_extent_npoints(s)));
  REQUIRE(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
  H5Sclose(s);
  H5Dclose(d);
  H5Fclose(f);
  return v;
}

double read_double_attr(const std::string& file, const char* name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  double x = -1;
  H5Aread(a, H5T_NATIVE_DOUBLE, &x);
  H5Aclose(a);
  H5Fclose(f);
  return x;
}

/// Global ids held by `rank` in the snapshot test: rank r holds (r % 3) + 1 elements, except
/// rank 1 holds none (an empty rank must still take part); ids are scattered, not in rank order.
std::vector<std::int64_t> snapshot_ids(int rank, int size) {
  std::vector<std::int64_t> ids;
  std::int64_t first = 0;
  auto count = [](int r) { return r == 1 ? 0 : r % 3 + 1; };
  for (int r = 0; r < rank; ++r)
    first += count(r);
  std::int64_t total = first;
  for (int r = rank; r < size; ++r)
    total += count(r);
  for (int i = 0; i < count(rank); ++i)
    ids.push_back(total - 1 - (first + i)); // reversed
  return ids;
}

double coord(std::int64_t gid, int p, int c) {
  return 1000.0 * double(gid) + 10.0 * p + c;
}
double uval(std::int64_t gid, int p) {
  return double(gid) + 1e-3 * p;
}

/// The error of `f` as thrown on this rank (every rank must throw InputError).
template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const dg::InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

} // namespace

TEST_CASE("snapshots: every rank's points land at its offset; XDMF lists the files", "[mpi][io]") {
  const int rank = comm_rank(), size = comm_size();
  const int n = 3, npts = n * n * n, ncells = (n - 1) * (n - 1) * (n - 1);
  std::int64_t nelem = 0;
  std::vector<std::int64_t> order; // file order: ranks' elements one after another
  for (int r = 0; r < size; ++r) {
    const auto ids = snapshot_ids(r, size);
    order.insert(order.end(), ids.begin(), ids.end());
  }
  nelem = std::int64_t(order.size());

  for (const ParallelIo mode : {ParallelIo::automatic, ParallelIo::sequential}) {
    const std::string dir =
        test_dir(mode == ParallelIo::automatic ? "snap_auto" : "snap_seq") + "/sub";
    const auto ids = snapshot_ids(rank, size);
    std::vector<double> xyz, u, v;
    for (auto g : ids)
      for (int p = 0; p < npts; ++p) {
        for (int c = 0; c < 3; ++c)
          xyz.push_back(coord(g, p, c));
        u.push_back(uval(g, p));
        v.push_back(-uval(g, p));
      }
    dg::io::SnapshotWriter w(MPI_COMM_WORLD, dir, "adv", npts, ncells, nelem, mode);
    w.write(0, 0.0, 0, ids, xyz, u);
    w.write(1, 0.5, 10, ids, xyz, u, {{"v", v}});
    w.write(2, 1.0, 20, ids, xyz, u);
    w.write(2, 0.75, 15, ids, xyz, u, {{"v", v}}); // a rewind replaces the entry
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      const std::string f1 = dir + "/adv_00001.h5";
      REQUIRE(fs::exists(f1));
      const auto eid = read_all<std::int64_t>(f1, "element_id", H5T_NATIVE_INT64);
      CHECK(eid == order);
      const auto X = read_all<double>(f1, "coordinates", H5T_NATIVE_DOUBLE);
      const auto U = read_all<double>(f1, "u", H5T_NATIVE_DOUBLE);
      const auto V = read_all<double>(f1, "v", H5T_NATIVE_DOUBLE);
      REQUIRE(X.size() == std::size_t(nelem * npts * 3));
      REQUIRE(U.size() == std::size_t(nelem * npts));
      std::size_t bad = 0;
      for (std::size_t e = 0; e < order.size(); ++e)
        for (int p = 0; p < npts; ++p) {
          const std::size_t row = e * npts + std::size_t(p);
          for (int c = 0; c < 3; ++c)
            bad += X[3 * row + std::size_t(c)] != coord(order[e], p, c);
          bad += U[row] != uval(order[e], p);
          bad += V[row] != -uval(order[e], p);
        }
      CHECK(bad == 0);
      const auto C = read_all<std::int64_t>(f1, "connectivity", H5T_NATIVE_INT64);
      REQUIRE(C.size() == std::size_t(nelem * ncells * 8));
      // First cell of each element: lattice points (0,0,0),(1,0,0),(1,1,0),(0,1,0), then z+1.
      const std::int64_t first[8] = {0, 1, 4, 3, 9, 10, 13, 12};
      for (std::int64_t e = 0; e < nelem; ++e)
        for (int a = 0; a < 8; ++a)
          CHECK(C[std::size_t(e * ncells * 8 + a)] == e * npts + first[a]);
      CHECK(*std::max_element(C.begin(), C.end()) == nelem * npts - 1);
      CHECK(read_double_attr(f1, "time") == 0.5);

      const std::string xdmf = slurp(dir + "/adv.xdmf");
      CHECK(xdmf.find("CollectionType=\"Temporal\"") != std::string::npos);
      CHECK(xdmf.find("adv_00000.h5:/coordinates") != std::string::npos);
      CHECK(xdmf.find("adv_00001.h5:/v") != std::string::npos);
      CHECK(xdmf.find("adv_00002.h5:/u") != std::string::npos);
      CHECK(xdmf.find("<Time Value=\"0.75\"/>") != std::string::npos);
      CHECK(xdmf.find("<Time Value=\"1\"/>") == std::string::npos);
      CHECK(xdmf.find("TopologyType=\"Hexahedron\" NumberOfElements=\"" +
                      std::to_string(nelem * ncells) + "\"") != std::string::npos);
      CHECK_FALSE(fs::exists(dir + "/adv.xdmf.tmp"));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    // A restarted run (new writer, same directory) keeps listing the earlier snapshots.
    {
      dg::io::SnapshotWriter again(MPI_COMM_WORLD, dir, "adv", npts, ncells, nelem, mode);
      again.write(3, 2.0, 30, ids, xyz, u);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      const std::string xdmf = slurp(dir + "/adv.xdmf");
      for (const char* f : {"adv_00000.h5:/u", "adv_00001.h5:/v", "adv_00002.h5:/v",
                            "adv_00003.h5:/u", "<Time Value=\"2\"/>"})
        CHECK(xdmf.find(f) != std::string::npos);
    }
    // A fresh run starting at index 0 lists only its own snapshot.
    {
      dg::io::SnapshotWriter fresh(MPI_COMM_WORLD, dir, "adv", npts, ncells, nelem, mode);
      fresh.write(0, 0.0, 0, ids, xyz, u);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      const std::string xdmf = slurp(dir + "/adv.xdmf");
      CHECK(xdmf.find("adv_00000.h5:/u") != std::string::npos);
      CHECK(xdmf.find("adv_00001.h5") == std::string::npos);
    }
  }
}

TEST_CASE("checkpoints: rows by global id, read back on another distribution", "[mpi][io]") {
  const int rank = comm_rank(), size = comm_size();
  const std::int64_t nelem = 4 * size + 3;
  const int nmodes = 8;
  auto value = [](std::int64_t g, int m) { return 100.0 * double(g) + m + 0.25; };
  // Interleaved ownership: rank r holds r, r+size, r+2 size, ...
  auto interleaved = [&](int r) {
    std::vector<std::int64_t> ids;
    for (std::int64_t g = r; g < nelem; g += size)
      ids.push_back(g);
    return ids;
  };

  for (const ParallelIo mode : {ParallelIo::automatic, ParallelIo::sequential}) {
    const std::string dir = test_dir(mode == ParallelIo::automatic ? "ckpt_auto" : "ckpt_seq");
    const std::string path = dir + "/run_checkpoint.h5";
    // A stale temporary (a crashed earlier write) and an older checkpoint.
    if (rank == 0) {
      std::ofstream(path + ".tmp") << "garbage from a killed run";
      std::ofstream(path) << "an older file that the rename replaces";
    }
    MPI_Barrier(MPI_COMM_WORLD);

    dg::io::CheckpointData d;
    d.time = 0.125;
    d.step = 42;
    d.order = 1;
    d.nmodes = nmodes;
    d.yaml = "mesh:\n  box: -nx 2\ntime:\n  cfl: 0.3\n";
    d.nelem_global = nelem;
    d.global_ids = interleaved(rank);
    std::reverse(d.global_ids.begin(), d.global_ids.end()); // not sorted locally either
    for (auto g : d.global_ids)
      for (int m = 0; m < nmodes; ++m)
        d.modes.push_back(value(g, m));
    dg::io::write_checkpoint(MPI_COMM_WORLD, path, d, mode);

    CHECK(fs::exists(path));
    CHECK_FALSE(fs::exists(path + ".tmp"));
    if (rank == 0) {
      const auto all = read_all<double>(path, "modes", H5T_NATIVE_DOUBLE);
      REQUIRE(all.size() == std::size_t(nelem * nmodes));
      std::size_t bad = 0;
      for (std::int64_t g = 0; g < nelem; ++g)
        for (int m = 0; m < nmodes; ++m)
          bad += all[std::size_t(g * nmodes + m)] != value(g, m);
      CHECK(bad == 0);
    }

    // Read back: rank r takes what rank size-1-r wrote, plus a block distribution.
    std::vector<std::vector<std::int64_t>> layouts;
    layouts.push_back(interleaved(size - 1 - rank));
    {
      std::vector<std::int64_t> block;
      const std::int64_t per = nelem / size, extra = nelem % size;
      const std::int64_t lo = rank * per + std::min<std::int64_t>(rank, extra);
      const std::int64_t hi = lo + per + (rank < extra ? 1 : 0);
      for (std::int64_t g = hi - 1; g >= lo; --g)
        block.push_back(g);
      layouts.push_back(block);
    }
    for (const auto& mine : layouts) {
      const auto r = dg::io::read_checkpoint(MPI_COMM_WORLD, path, mine, mode);
      CHECK(r.time == 0.125);
      CHECK(r.step == 42);
      CHECK(r.order == 1);
      CHECK(r.nmodes == nmodes);
      CHECK(r.nelem_global == nelem);
      CHECK(r.yaml == d.yaml);
      CHECK(r.global_ids == mine);
      REQUIRE(r.modes.size() == mine.size() * nmodes);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < mine.size(); ++i)
        for (int m = 0; m < nmodes; ++m)
          bad += r.modes[i * nmodes + std::size_t(m)] != value(mine[i], m);
      CHECK(bad == 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

TEST_CASE("checkpoints: missing, foreign and mismatched files are input errors", "[mpi][io]") {
  const int rank = comm_rank(), size = comm_size();
  const std::string dir = test_dir("ckpt_errors");
  std::vector<std::int64_t> mine;
  for (std::int64_t g = rank; g < 2 * size; g += size)
    mine.push_back(g);

  auto e = input_error_of([&] { dg::io::read_checkpoint(MPI_COMM_WORLD, dir + "/none.h5", mine); });
  CHECK(e == dir + "/none.h5: no such checkpoint file");

  if (rank == 0) std::ofstream(dir + "/text.h5") << "not hdf5";
  MPI_Barrier(MPI_COMM_WORLD);
  e = input_error_of([&] { dg::io::read_checkpoint(MPI_COMM_WORLD, dir + "/text.h5", mine); });
  CHECK(e.find("not an HDF5 file") != std::string::npos);

  // An HDF5 file that is not a checkpoint: a snapshot.
  {
    dg::io::SnapshotWriter w(MPI_COMM_WORLD, dir, "snap", 8, 1, 2 * size);
    std::vector<double> xyz(mine.size() * 8 * 3, 0.0), u(mine.size() * 8, 0.0);
    w.write(0, 0.0, 0, mine, xyz, u);
  }
  e = input_error_of(
      [&] { dg::io::read_checkpoint(MPI_COMM_WORLD, dir + "/snap_00000.h5", mine); });
  CHECK(e.find("not a dgsolve checkpoint") != std::string::npos);

  // A checkpoint of 2*size elements read by a mesh of 2*size - 1.
  dg::io::CheckpointData d;
  d.nmodes = 1;
  d.nelem_global = 2 * size;
  d.global_ids = mine;
  d.modes.assign(mine.size(), 1.0);
  dg::io::write_checkpoint(MPI_COMM_WORLD, dir + "/ck.h5", d);
  auto fewer = mine;
  if (rank == 0) fewer.pop_back();
  e = input_error_of([&] { dg::io::read_checkpoint(MPI_COMM_WORLD, dir + "/ck.h5", fewer); });
  CHECK(e.find("checkpoint holds " + std::to_string(2 * size) + " elements, but the mesh has " +
               std::to_string(2 * size - 1)) != std::string::npos);
}

TEST_CASE("CSV log: rank 0 writes full-precision rows", "[mpi][io]") {
  const std::string dir = test_dir("csv") + "/log";
  {
    dg::io::CsvLog log(MPI_COMM_WORLD, dir, "run", {"step", "time", "umax"});
    log.row({1, 0.1, 1.0 / 3.0});
    log.row({2, 0.2, -2.5e-300});
  }
  {
    dg::io::CsvLog log(MPI_COMM_WORLD, dir, "run", {"step", "time", "umax"}, true);
    log.row({3, 0.3, 7});
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (comm_rank() == 0) {
    const std::string text = slurp(dir + "/run.csv");
    CHECK(text == "step,time,umax\n"
                  "1.0000000000000000e+00,1.0000000000000001e-01,3.3333333333333331e-01\n"
                  "2.0000000000000000e+00,2.0000000000000001e-01,-2.5000000000000000e-300\n"
                  "3.0000000000000000e+00,2.9999999999999999e-01,7.0000000000000000e+00\n");
  }
  { dg::io::CsvLog log(MPI_COMM_WORLD, dir, "run", {"step", "time", "umax"}); }
  MPI_Barrier(MPI_COMM_WORLD);
  if (comm_rank() == 0) CHECK(slurp(dir + "/run.csv") == "step,time,umax\n");
}
