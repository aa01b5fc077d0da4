#!/usr/bin/env bash
# dgmesh command line: a valid run writes box.h5 + box.xdmf; every bad flag/value exits 2 with one
# stderr line "dgmesh: ..." and writes nothing; --help exits 0 and documents every flag.
set -u
DGMESH="${DG_BIN:?DG_BIN not set}/mesh_tools/dgmesh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$DGMESH" -nx 4 >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 0 ] || fail "-nx 4: exit $rc ($(cat err.txt))"
[ -s box.h5 ] || fail "-nx 4: box.h5 missing"
[ -s box.xdmf ] || fail "-nx 4: box.xdmf missing"
grep -q "64 elements" out.txt || fail "-nx 4: summary line missing: $(cat out.txt)"
grep -q '>box.h5:/hex<' box.xdmf || fail "box.xdmf does not reference box.h5:/hex"
rm -f box.h5 box.xdmf

"$DGMESH" -nx 3 -periodic xz -warp 0.1 -perturb 0.1 -shuffle 2 -r run >/dev/null 2>err.txt ||
  fail "-r run: exit $? ($(cat err.txt))"
if [ ! -s run.h5 ] || [ ! -s run.xdmf ]; then fail "-r run: run.h5/run.xdmf missing"; fi
rm -f run.h5 run.xdmf

check_bad() {
  "$DGMESH" "$@" >out.txt 2>err.txt
  local rc=$?
  [ "$rc" -eq 2 ] || fail "'$*': exit $rc, expected 2"
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "'$*': stderr is not one line: $(cat err.txt)"
  grep -q '^dgmesh: ' err.txt || fail "'$*': stderr lacks 'dgmesh: ': $(cat err.txt)"
  local left
  left=$(find . -mindepth 1 -maxdepth 1 ! -name out.txt ! -name err.txt -printf '%f ')
  [ -z "$left" ] || fail "'$*': files written: $left"
}
check_bad -nx 0
check_bad -nx abc
check_bad -bogus
check_bad -periodic w
check_bad -warp 5
check_bad -nsd 2
check_bad -nx
check_bad -Lx -1
check_bad -perturb 0.7

"$DGMESH" --help >help.txt 2>err.txt
rc=$?
[ "$rc" -eq 0 ] || fail "--help: exit $rc"
for flag in -nsd -nx -ny -nz -x0 -y0 -z0 -Lx -Ly -Lz -r -periodic -warp -curve -perturb -seed -shuffle -o --help import; do
  grep -q -- "$flag" help.txt || fail "--help does not mention $flag"
done
grep -q "default" help.txt || fail "--help shows no defaults"
[ ! -e box.h5 ] || fail "--help wrote box.h5"

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "dgmesh CLI: all checks passed"
