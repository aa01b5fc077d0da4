#!/usr/bin/env bash
# A run killed with SIGKILL while it writes a checkpoint leaves the previous checkpoint intact
# under the final name (only the temporary file is partial), and a restart from it reproduces
# the uninterrupted run bitwise (same rank count).
set -u
bin="$DG_BIN/src/dgsolve"
# The MPI launcher with the settings given to CMake (tests/dg_mpiexec.in).
mpiexec="${DG_MPIEXEC:-$DG_BIN/tests/dg_mpiexec}"
py=/usr/bin/python3
# The checks read HDF5 with h5py (scripts/setup-debian.sh installs it); skip where it is missing.
"$py" -c "import h5py" 2>/dev/null || { echo "SKIP: no h5py for $py"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
cp "$DG_SRC/inputs/advect.yaml" .
job=(advect.yaml --set "mesh.box=-nx 4 -periodic xyz -warp 0.05 -shuffle 4"
     --set discretization.order=2 --set physics.diffusivity=0.01 --set time.steps=8
     --set output.snapshots=false --set output.checkpoint_steps=2 -q)

# Uninterrupted: its final checkpoint (step 8) is the reference.
"$mpiexec" -n 2 "$bin" "${job[@]}" --set output.directory=ref || { echo "FAIL: reference run"; fail=1; }

# Killed inside the third checkpoint (step 6): the one of step 4 must survive.
start=$(date +%s)
DG_TEST_KILL_IN_CHECKPOINT=3 timeout 60 "$mpiexec" -n 2 "$bin" "${job[@]}" \
  --set output.directory=out >kill_out.txt 2>kill_err.txt
rc=$?
elapsed=$(($(date +%s) - start))
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || [ "$elapsed" -ge 20 ]; then
  echo "FAIL: killed run: rc=$rc after ${elapsed}s: $(tail -3 kill_err.txt)"; fail=1
fi
ck=out/advect_checkpoint.h5
[ -e "$ck.tmp" ] || { echo "FAIL: no partial $ck.tmp: the kill did not hit a checkpoint write"; fail=1; }
if ! "$py" - "$ck" ref/advect_checkpoint.h5 <<'EOF'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f, h5py.File(sys.argv[2], "r") as r:
    assert f.attrs["format"] in (b"dgsolve-checkpoint", "dgsolve-checkpoint"), f.attrs["format"]
    assert int(f.attrs["step"]) == 4, f"step {int(f.attrs['step'])}, expected 4"
    m = f["modes"][...]
    assert m.shape == r["modes"].shape, (m.shape, r["modes"].shape)
    assert np.all(np.isfinite(m)) and np.count_nonzero(m) > 0.9 * m.size, "modes incomplete"
EOF
then
  echo "FAIL: $ck is not the intact step-4 checkpoint"; fail=1
fi

# Restart from the surviving checkpoint and finish: the same bits as the uninterrupted run.
cp "$ck" survived.h5
if ! "$mpiexec" -n 2 "$bin" "${job[@]}" --set output.directory=out --restart survived.h5; then
  echo "FAIL: restart from the surviving checkpoint"; fail=1
fi
if ! "$py" - "$ck" ref/advect_checkpoint.h5 <<'EOF'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f, h5py.File(sys.argv[2], "r") as r:
    assert int(f.attrs["step"]) == 8 and int(r.attrs["step"]) == 8
    a, b = f["modes"][...], r["modes"][...]
    assert np.array_equal(a, b), f"max difference {np.max(np.abs(a - b))}"
EOF
then
  echo "FAIL: the restarted run differs from the uninterrupted one"; fail=1
fi
exit $fail
