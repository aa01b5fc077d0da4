#!/usr/bin/env bash
# dgbench command line: bad options give one line and exit status 2; a tiny run of every
# sub-command succeeds and writes a CSV whose rows match the JSON's, with the columns the
# postprocess scripts read. (Timings are not checked: benchmarks, not tests.)
set -u
bin="$DG_BIN/src/dgbench"
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
expect2() { # expect2 DESCRIPTION PATTERN ARGS...
  local what=$1 pat=$2
  shift 2
  "$bin" "$@" >out.txt 2>err.txt
  local rc=$?
  if [ "$rc" -ne 2 ] || [ "$(grep -c . err.txt)" -ne 1 ] || ! grep -q -- "$pat" err.txt; then
    echo "FAIL: $what: rc=$rc: $(cat err.txt)"
    fail=1
  fi
}
expect2 "unknown command" "valid: integrate, stage, transforms" frobnicate
expect2 "unknown option" "unknown option --bogus" transforms --bogus 1
expect2 "order out of range" "--p 16: valid are 1\.\.[0-9]" stage --p 16
expect2 "bad variant" "valid are fused" stage --variants foo
expect2 "bad batch" "valid are 1, 2" stage --batch 0
expect2 "not an integer" "expected an integer" transforms --p x
expect2 "integrate order" "--orders 0: valid are 1\.\.[0-9]" integrate --orders 0

run() { # run NAME ARGS...: exit 0, CSV and JSON written with the same number of rows
  local name=$1
  shift
  if ! "$bin" "$@" --csv "$name.csv" --json "$name.json" >"$name.txt" 2>&1; then
    echo "FAIL: $name: $(tail -3 "$name.txt")"
    fail=1
    return
  fi
  "$py" - "$name.csv" "$name.json" "$@" <<'PY' || { echo "FAIL: $name: outputs"; fail=1; }
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
doc = json.load(open(sys.argv[2]))
assert rows and len(rows) == len(doc["rows"]), (len(rows), len(doc["rows"]))
assert "execution_space" in doc["meta"]
for r in rows:
    for k in ("time_s", "step_s", "t_kernel_s"):
        if k in r and r[k]:
            assert float(r[k]) > 0.0, (k, r[k])
PY
}
run transforms transforms --p 1,3 --elements 8 --dofs 0 --variants blocked,entry,runtime --reps 1
run stage stage --p 2 --dofs 2000 --physics advection,advdiff --variants fused,quadrature --steps 1
run stage_batch stage --p 2 --dofs 2000 --physics advection-rotation --variants fused,boundary-per-stage --steps 1 --batch 3
run integrate integrate --ops mass,laplacian --orders 1 --elements 16 --reps 1 --rhs-orders 1 --rhs-nx 2
grep -q "backward" transforms.csv || { echo "FAIL: transforms.csv has no backward rows"; fail=1; }
exit $fail
