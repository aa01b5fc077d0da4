#!/usr/bin/env bash
# Gmsh meshes on the command line: `dgmesh import` converts the committed .msh files (and, when
# gmsh is installed, every format and order it writes from the .geo scripts); dgsolve runs a .msh
# directly; every bad .msh, through dgmesh import and through dgsolve, gives one line on stderr,
# exit status 2 and no file; bad -curve values likewise.
set -u
DGMESH="${DG_BIN:?DG_BIN not set}/mesh_tools/dgmesh"
DGSOLVE="$DG_BIN/src/dgsolve"
MESHES="${DG_SRC:?DG_SRC not set}/tests/meshes"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

for f in annulus_q1 annulus_q2_bin annulus_q3 annulus22_q2 annulus22_q3_bin box_q3 box22_q2; do
  "$DGMESH" import "$MESHES/$f.msh" -o "$f.h5" >out.txt 2>err.txt || fail "import $f: $(cat err.txt)"
  [ -s "$f.h5" ] && [ -s "$f.xdmf" ] || fail "import $f: $f.h5 / $f.xdmf missing"
  case $f in
  annulus_*) grep -q "boundary tags: 0 inner 1 outer" out.txt || fail "import $f: $(cat out.txt)" ;;
  esac
done
grep -q "16 periodic pairs" <("$DGMESH" import "$MESHES/annulus_q3.msh" -o q3.h5) ||
  fail "annulus_q3: periodic pairs missing"

# dgsolve reads a .msh directly and writes snapshots sampled through the curved map.
cat >run.yaml <<EOF
mesh: {file: $MESHES/annulus_q2_bin.msh}
discretization: {order: 2}
physics: {velocity_field: rotation, rotation_center: [0, 0, 0]}
initial: {type: gaussian, center: [0, 1.5, 0.25], width: 0.2}
time: {steps: 3}
output: {directory: out, name: ring, quiet: true}
EOF
"$DGSOLVE" run.yaml >out.txt 2>err.txt || fail "dgsolve on a .msh: $(cat err.txt)"
[ -s out/ring.xdmf ] || fail "dgsolve on a .msh: no snapshots"
rm -rf out

# The cylinder example (expressions on a curved Gmsh mesh with named boundaries) runs.
"$DGSOLVE" "$DG_SRC/inputs/cylinder/cylinder.yaml" --set time.steps=3 --set output.directory=out \
  --set output.quiet=true >out.txt 2>err.txt || fail "inputs/cylinder/cylinder.yaml: $(cat err.txt)"
[ -s out/cylinder.xdmf ] || fail "inputs/cylinder/cylinder.yaml: no snapshots"
# A boundary name the mesh does not have lists its names, nearest first.
"$DGSOLVE" "$DG_SRC/inputs/cylinder/cylinder.yaml" --set boundary.inlett=outflow \
  --set output.directory=bad_out >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <err.txt)" -eq 1 ] && [ ! -e bad_out ] ||
  fail "unknown boundary name: exit $rc: $(cat err.txt)"
grep -q "nearest first: inlet, outlet" err.txt || fail "unknown boundary name: $(cat err.txt)"
rm -rf out

# check_bad PATTERN FILE: dgmesh import and dgsolve refuse FILE with one line matching PATTERN.
check_bad() {
  local pat=$1 file=$2 rc
  mkdir -p bad && cd bad || exit 1
  "$DGMESH" import "../$file" -o out.h5 >out.txt 2>err.txt
  rc=$?
  [ "$rc" -eq 2 ] || fail "import $file: exit $rc, expected 2 ($(cat err.txt))"
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "import $file: stderr is not one line: $(cat err.txt)"
  grep -q -- "$pat" err.txt || fail "import $file: '$pat' not in: $(cat err.txt)"
  printf 'mesh: {file: ../%s}\noutput: {directory: out}\n' "$file" >bad.yaml
  "$DGSOLVE" bad.yaml >out.txt 2>err2.txt
  rc=$?
  [ "$rc" -eq 2 ] || fail "dgsolve $file: exit $rc, expected 2 ($(cat err2.txt))"
  [ "$(wc -l <err2.txt)" -eq 1 ] || fail "dgsolve $file: stderr is not one line: $(cat err2.txt)"
  grep -q -- "$pat" err2.txt || fail "dgsolve $file: '$pat' not in: $(cat err2.txt)"
  local left
  left=$(ls -A | grep -v -e '^out.txt$' -e '^err.txt$' -e '^err2.txt$' -e '^bad.yaml$')
  [ -z "$left" ] || fail "$file: files written: $left"
  echo "ok: $file: $(cat err.txt)"
  cd .. && rm -rf bad
}
nodes='$Nodes\n8\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n5 0 0 1\n6 1 0 1\n7 1 1 1\n8 0 1 1\n$EndNodes\n'
head22='$MeshFormat\n2.2 0 8\n$EndMeshFormat\n'
printf "$head22$nodes"'$Elements\n1\n1 4 2 1 1 1 2 3 5\n$EndElements\n' >tet.msh
check_bad "is a tetrahedron (Gmsh type 4): dgsolve needs all-hex meshes" tet.msh
printf "$head22$nodes"'$Elements\n1\n1 6 2 1 1 1 2 3 5 6 7\n$EndElements\n' >prism.msh
check_bad "is a prism" prism.msh
printf "$head22$nodes"'$Elements\n1\n1 7 2 1 1 1 2 3 4 5\n$EndElements\n' >pyramid.msh
check_bad "is a pyramid" pyramid.msh
printf "$head22$nodes"'$Elements\n1\n1 5 2 1 1 1 2 3 4 5 6 7 8\n$EndElements\n' >untagged.msh
check_bad "6 boundary faces belong to no physical surface" untagged.msh
head -c 5000 "$MESHES/annulus_q1.msh" >truncated.msh
check_bad "truncated file" truncated.msh
sed 's/^4\.1 0 8$/3.0 0 8/' "$MESHES/annulus_q1.msh" >version.msh
check_bad "MSH version 3.0 is not supported" version.msh
{
  printf "$head22$nodes"
  printf '$Elements\n2\n1 5 2 1 1 1 2 3 4 5 6 7 8\n2 12 2 1 1'
  for i in $(seq 1 27); do printf ' %d' $(((i - 1) % 8 + 1)); done
  printf '\n$EndElements\n'
} >mixed.msh
check_bad "mixed geometric orders" mixed.msh

# -curve values
for args in "-curve 4" "-curve 0" "-curve 2 -periodic y" "-curve 2 -Lx 7"; do
  # shellcheck disable=SC2086
  "$DGMESH" $args >out.txt 2>err.txt
  rc=$?
  [ "$rc" -eq 2 ] && [ "$(wc -l <err.txt)" -eq 1 ] || fail "dgmesh $args: exit $rc: $(cat err.txt)"
  [ ! -e box.h5 ] || fail "dgmesh $args: box.h5 written"
done
"$DGMESH" -nx 4 -ny 2 -nz 2 -periodic xz -curve 3 -o ring.h5 >out.txt 2>err.txt ||
  fail "-curve 3: $(cat err.txt)"
grep -q 'ring.h5:/xdmf_hex' ring.xdmf || fail "ring.xdmf does not show the node lattice"

# Every format and order Gmsh writes from the .geo scripts (only where gmsh is installed).
if command -v gmsh >/dev/null 2>&1; then
  for fmt in msh41 msh22; do
    for bin in "" -bin; do
      for k in 1 2 3; do
        periodic=1
        [ "$fmt" = msh22 ] && periodic=0 # MSH 2.2 keeps the periodic nodes only with -save_all
        gmsh "$MESHES/annulus.geo" -setnumber periodic $periodic -3 -order $k -format $fmt $bin \
          -o g.msh >gmsh.log 2>&1
        [ -s g.msh ] || fail "gmsh $fmt $bin -order $k wrote nothing: $(tail -2 gmsh.log)"
        "$DGMESH" import g.msh -o g.h5 >out.txt 2>err.txt ||
          fail "import of gmsh $fmt $bin -order $k: $(cat err.txt)"
        grep -q "of geometric order $k" out.txt || fail "gmsh $fmt $bin -order $k: $(cat out.txt)"
        rm -f g.msh g.h5 g.xdmf
      done
    done
  done
  echo "gmsh: 12 annulus meshes written and imported"
else
  echo "gmsh not installed: only the committed .msh files were imported"
fi

[ "$fails" -eq 0 ] && echo "gmsh CLI: all checks passed"
exit $((fails > 0))
