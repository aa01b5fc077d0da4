#!/usr/bin/env bash
# dgsolve command line: bad input gives one line, exit status 2 and no output files; a short
# run succeeds and writes HDF5 + XDMF + CSV.
set -u
bin="$DG_BIN/src/dgsolve"
src="$DG_SRC"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
expect2() { # expect2 DESCRIPTION PATTERN ARGS...
  local what=$1 pat=$2
  shift 2
  "$bin" "$@" >out.txt 2>err.txt
  local rc=$?
  local lines
  lines=$(wc -l <err.txt)
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -- "$pat" err.txt || [ -e out ]; then
    echo "FAIL: $what: rc=$rc lines=$lines: $(cat err.txt)"
    fail=1
  fi
}
cp "$src/inputs/advect.yaml" .
expect2 "unknown key" "did you mean time.cfl" advect.yaml --set time.cfll=1
expect2 "bad cfl" "time.cfl" advect.yaml --set time.cfl=-0.5
expect2 "order out of range" "discretization.order" advect.yaml --set discretization.order=16
expect2 "wrong type" "time.final_time" advect.yaml --set time.final_time=abc
printf 'mesh: {file: nope.h5}\n' >nomesh.yaml
expect2 "missing mesh file" "nope.h5" nomesh.yaml
expect2 "bad mesh.box" "mesh.box" advect.yaml --set "mesh.box=-nx 0"
expect2 "missing input" "missing.yaml" missing.yaml
expect2 "unknown option" "--bogus" --bogus advect.yaml
"$bin" --version | grep -q "dgsolve" || { echo "FAIL: --version"; fail=1; }
"$bin" --help | grep -q -- "--set" || { echo "FAIL: --help"; fail=1; }
# A short real run.
if ! "$bin" advect.yaml --set "mesh.box=-nx 2 -periodic xyz" --set discretization.order=2 \
    --set time.final_time=0.05 --set output.interval=0.025 -q; then
  echo "FAIL: short run"; fail=1
fi
for f in out/advect.xdmf out/advect_00000.h5 out/advect_00002.h5 out/advect.csv; do
  [ -s "$f" ] || { echo "FAIL: missing $f"; fail=1; }
done
# Unstable settings stop the run with the step and time, and the last snapshot stays readable.
"$bin" advect.yaml --set "mesh.box=-nx 2 -periodic xyz" --set discretization.order=2 \
  --set time.dt=0.5 --set time.steps=2000 --set output.progress_every=1 --set output.name=blow \
  -q >out.txt 2>err.txt
rc=$?
if [ "$rc" -eq 0 ] || ! grep -q "non-finite.*(dt = .* may be unstable: lower time.dt)" err.txt; then
  echo "FAIL: unstable run: rc=$rc $(cat err.txt)"; fail=1
fi
[ -s out/blow_00000.h5 ] || { echo "FAIL: last good snapshot missing"; fail=1; }
# With diffusion an SIPG penalty too small is unstable at any step: the message names it too.
"$bin" advect.yaml --set "mesh.box=-nx 2 -periodic xyz" --set discretization.order=2 \
  --set physics.diffusivity=0.05 --set physics.penalty=1e-6 --set time.steps=3000 \
  --set output.progress_every=10 --set output.snapshots=false -q >out.txt 2>err.txt
rc=$?
if [ "$rc" -eq 0 ] || ! grep -q "non-finite.*lower time.cfl, or raise physics.penalty" err.txt; then
  echo "FAIL: unstable diffusive run: rc=$rc $(cat err.txt)"; fail=1
fi
exit $fail
