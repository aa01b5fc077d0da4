#!/usr/bin/env bash
# The README's run command: set up, generate the mesh of inputs/advect.yaml with dgmesh, then
# run the default job on 2 MPI ranks. Output lands in out/ (HDF5 + XDMF for ParaView).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup-debian.sh"
bin=${DG_BUILD_DIR:-$here/build}
cd "$here"
mkdir -p out
"$bin/mesh_tools/dgmesh" -nx 8 -ny 8 -nz 8 -periodic xyz -o out/box8.h5
if [ -x "$bin/src/dgsolve" ]; then
  mpiexec=$(command -v mpiexec.mpich || command -v mpiexec)
  "$mpiexec" -n "${DG_RANKS:-2}" "$bin/src/dgsolve" inputs/advect.yaml "$@"
fi
