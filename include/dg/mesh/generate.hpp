// Structured box meshes in the manner of DGM's dgm_mesh: the flag parser, the generator (with
// periodicity, warping, perturbation and vertex-order shuffling) and the --help text. Used by
// dgmesh and by the solver's in-memory `mesh.box` option.
#pragma once

#include "dg/mesh/mesh.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace dg::mesh {

/// Options of a generated box [x0, x0+Lx] x [y0, y0+Ly] x [z0, z0+Lz] of nx x ny x nz hexes.
struct BoxOptions {
  int nsd = 3;                                 // space dimensions (only 3 is supported)
  std::int64_t nx = 4;                         // elements in x
  std::int64_t ny = -1;                        // elements in y (-1: same as nx)
  std::int64_t nz = -1;                        // elements in z (-1: same as nx)
  std::array<double, 3> origin{0.0, 0.0, 0.0}; // x0, y0, z0
  std::array<double, 3> length{1.0, 1.0, 1.0}; // Lx, Ly, Lz
  std::array<bool, 3> periodic{false, false, false};
  double warp = 0.0;              // smooth deformation amplitude (fraction of L)
  double perturb = 0.0;           // random interior-vertex motion (fraction of spacing)
  std::uint64_t seed = 1;         // seed of -perturb
  int curve = 0;                  // > 0: map onto a cylindrical shell at geometric order curve
  bool shuffle = false;           // randomise each hex's local vertex numbering
  std::uint64_t shuffle_seed = 0; // seed of -shuffle
  std::string output = "box.h5";  // -o FILE (or -r ROOT -> ROOT.h5)
  bool help = false;              // --help / -h was given
  std::string command;            // the flags as given (recorded in the mesh file)

  std::int64_t count(int d) const {
    return d == 0 ? nx : (d == 1 ? (ny < 0 ? nx : ny) : (nz < 0 ? nx : nz));
  }
};

/// Parses dgm_mesh-style flags (argv without the program name). Throws InputError with a
/// one-line message naming the flag, the bad value and what is valid.
BoxOptions parse_box_flags(const std::vector<std::string>& args);

/// Splits a flag string ("-nx 8 -periodic xyz") on white space and parses it.
BoxOptions parse_box_flags(const std::string& flags);

/// Generates the mesh. Throws InputError for invalid options or when warping/perturbation
/// inverts an element (det J <= 0 at a corner or the centre).
HexMesh generate_box(const BoxOptions& opt);

/// The --help text, with every flag and its default.
std::string box_help();

} // namespace dg::mesh
