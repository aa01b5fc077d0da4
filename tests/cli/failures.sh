#!/usr/bin/env bash
# A failure that only one rank sees ends every rank promptly (well under 20 s, never a hang) with
# one clear message and a non-zero status: bad input read by rank 0 alone, an error injected on
# one rank during set-up, a non-finite value on one rank only, and a launcher that disagrees
# with MPI about the rank count.
set -u
bin="$DG_BIN/src/dgsolve"
# The MPI launcher with the settings given to CMake (tests/dg_mpiexec.in).
mpiexec="${DG_MPIEXEC:-$DG_BIN/tests/dg_mpiexec}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
cp "$DG_SRC/inputs/advect.yaml" .
small=(--set "mesh.box=-nx 4 -periodic xyz -warp 0.05 -shuffle 4" --set discretization.order=2
       --set time.steps=20 --set output.snapshots=false -q)

# check DESCRIPTION WANT_RC PATTERN COMMAND...: exit status WANT_RC, PATTERN exactly once on
# stderr, done within 20 s (the command runs under a 60 s timeout so a hang fails, not blocks).
check() {
  local what=$1 want=$2 pat=$3
  shift 3
  local start end rc n
  start=$(date +%s.%N)
  timeout 60 "$@" >out.txt 2>err.txt
  rc=$?
  end=$(date +%s.%N)
  n=$(grep -c -- "$pat" err.txt)
  local secs
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  if [ "$rc" -ne "$want" ] || [ "$n" -ne 1 ] || awk -v s="$secs" 'BEGIN { exit !(s >= 20) }'; then
    echo "FAIL: $what: rc=$rc (want $want), message $n times, ${secs}s: $(head -c 600 err.txt)"
    fail=1
  else
    echo "ok: $what: rc=$rc in ${secs}s: $(grep -m1 -- "$pat" err.txt)"
  fi
}

# (a) Bad input read by one rank: only rank 0 reads the mesh file; every rank reports it, once.
printf 'mesh: {file: nope.h5}\n' >nomesh.yaml
check "mesh file missing, 3 ranks" 2 "nomesh.yaml: mesh.file = nope.h5" "$mpiexec" -n 3 "$bin" nomesh.yaml
# Lines of our own (Open MPI's mpiexec adds its boxed notice between dashed rules).
ours=$(awk '/^-+$/ { box = !box; next } !box' err.txt | grep -c .)
[ "$ours" -eq 1 ] || { echo "FAIL: more than one line: $(cat err.txt)"; fail=1; }
# (a') An input error on rank 1 alone during set-up, while the others go on into the run.
check "input error on rank 1 only" 2 "DG_TEST_FAIL_RANK = 1" \
  env DG_TEST_FAIL_RANK=1 "$mpiexec" -n 3 "$bin" advect.yaml "${small[@]}"
# (b) A NaN in rank 2's part of the initial state: all ranks stop, status 3.
check "non-finite value on rank 2 only" 3 "non-finite" \
  env DG_TEST_NAN_RANK=2 "$mpiexec" -n 3 "$bin" advect.yaml "${small[@]}"
# (c) A launcher announcing 2 ranks to a 1-rank MPI world (another MPI's mpirun).
rm -rf out
check "launcher mismatch" 2 "the launcher started 2 ranks but MPI sees 1" \
  env OMPI_COMM_WORLD_SIZE=2 "$bin" advect.yaml "${small[@]}"
[ -e out ] && { echo "FAIL: output written by refused runs"; fail=1; }
exit $fail
