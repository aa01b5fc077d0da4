#!/usr/bin/env bash
# dgsolve with expressions and boundary conditions by name: every bad expression or boundary
# entry gives one line naming the key, exit status 2 and no output files; the example inputs
# with expressions run (on a small mesh, a few steps).
set -u
bin="$DG_BIN/src/dgsolve"
src="$DG_SRC"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail=0
expect2() { # expect2 DESCRIPTION PATTERN ARGS...
  local what=$1 pat=$2
  shift 2
  "$bin" "$@" >out.txt 2>err.txt
  local rc=$?
  local lines
  lines=$(wc -l <err.txt)
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$pat" err.txt || [ -e out ]; then
    echo "FAIL: $what: rc=$rc lines=$lines: $(cat err.txt)"
    fail=1
  else
    echo "ok: $what: $(cat err.txt)"
  fi
}
cp "$src/inputs/plume_shear.yaml" .
expect2 "syntax error" 'physics.source = "sin(x": missing '"')'"' at column 6' \
  plume_shear.yaml --set 'physics.source=sin(x'
expect2 "unknown variable" "unknown name 'w' at column 10; valid: variables x, y, z, t" \
  plume_shear.yaml --set 'physics.source=sin(x) + w'
expect2 "unknown function" "unknown name 'bessel' at column 1" \
  plume_shear.yaml --set 'initial.expression=bessel(x)'
expect2 "t in a field" 'physics.velocity[1] = "t*y": t at column 1: this field must not depend on time' \
  plume_shear.yaml --set 'physics.velocity=[U, t*y, 0]'
expect2 "velocity components" "physics.velocity = [U, 0]: must be a list of 3 expressions" \
  plume_shear.yaml --set 'physics.velocity=[U, 0]'
expect2 "parameter shadows a variable" "parameters.x: shadows the variable x" \
  plume_shear.yaml --set 'parameters.x=1'
expect2 "not finite at set-up" 'initial.expression = "1/(y-0.0625)": is inf at (x, y, z) = (' \
  plume_shear.yaml --set 'initial.expression=1/(y-0.0625)'
expect2 "negative diffusivity" 'physics.diffusivity = "nu*(x-0.5)": is -' \
  plume_shear.yaml --set 'physics.diffusivity=nu*(x-0.5)'
expect2 "unknown tag" "boundary.xmn: the mesh has no boundary tag xmn; its tags, nearest first: xmin, xmax" \
  plume_shear.yaml --set 'boundary.xmn=outflow'
expect2 "outflow with a value" "an outflow boundary takes no value" \
  plume_shear.yaml --set 'boundary.xmax.value=1'
# The example inputs run.
for run in "plume_shear|-nx 3 -periodic yz" "heated_wall|-nx 3 -periodic z" "rotate_expr|-nx 3 -warp 0.05"; do
  f=${run%%|*}
  if ! "$bin" "$src/inputs/$f.yaml" --set "mesh.box=${run#*|}" --set discretization.order=2 \
      --set time.steps=3 --set output.snapshots=false --set output.directory=run_$f -q; then
    echo "FAIL: $f.yaml does not run"; fail=1
  else
    echo "ok: $f.yaml runs"
  fi
done
exit $fail
