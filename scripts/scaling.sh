#!/usr/bin/env bash
# Strong scaling of one fixed dgsolve job over rank counts: prints a markdown table (ranks, wall
# time, DOF-stages/s, speedup, efficiency, halo bytes per stage, waiting fraction) from the
# NAME_summary.csv that each run writes. The job is inputs/advect.yaml with a fixed step count.
#
#   scripts/scaling.sh                         # 1 and 2 ranks, MPICH's mpiexec, build/
# Environment (all optional):
#   DG_BUILD_DIR    build directory holding src/dgsolve (default: build/ beside scripts/)
#   DG_MPIEXEC      launcher (default: mpiexec.mpich or mpiexec)
#   DG_MPIEXEC_ARGS extra launcher arguments, e.g. "--allow-run-as-root --oversubscribe" (OpenMPI)
#   DG_RANKS        rank counts (default: "1 2")
#   DG_MESH         mesh.box of the job (default: "-nx 8 -periodic xyz", the default job's)
#   DG_STEPS        time steps per run (default: 100)
#   DG_ARGS         extra dgsolve arguments, e.g. "--set discretization.order=3"
#   DG_REPEAT       runs per rank count; the table shows the fastest (default: 1)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${DG_BUILD_DIR:-$here/build}/src/dgsolve
[ -x "$bin" ] || { echo "scaling.sh: $bin not found: build dgsolve first (DG_BUILD_DIR)" >&2; exit 2; }
mpiexec=${DG_MPIEXEC:-$(command -v mpiexec.mpich || command -v mpiexec)}
read -r -a launcher_args <<<"${DG_MPIEXEC_ARGS:-}"
read -r -a extra <<<"${DG_ARGS:-}"
ranks=${DG_RANKS:-1 2}
mesh=${DG_MESH:--nx 8 -periodic xyz}
steps=${DG_STEPS:-100}
repeat=${DG_REPEAT:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "job: inputs/advect.yaml, mesh.box = \"$mesh\", $steps steps, no output; $(date -u +%F)"
echo "launcher: $mpiexec ${DG_MPIEXEC_ARGS:-}; extra dgsolve arguments: ${DG_ARGS:-none}"
echo
echo "| ranks | wall (s) | DOF-stages/s | speedup | efficiency | halo bytes/stage | halo wait (max over ranks) |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
base=""
for n in $ranks; do
  best=""
  for ((r = 0; r < repeat; ++r)); do
    dir="$work/np$n-$r"
    "$mpiexec" "${launcher_args[@]}" -n "$n" "$bin" "$here/inputs/advect.yaml" \
      --set "mesh.box=$mesh" --set "time.steps=$steps" --set output.snapshots=false \
      --set "output.directory=$dir" --set output.name=scaling -q "${extra[@]}" >/dev/null
    row=$(tail -n 1 "$dir/scaling_summary.csv")
    wall=$(cut -d, -f6 <<<"$row")
    if [ -z "$best" ] || awk -v a="$wall" -v b="$(cut -d, -f6 <<<"$best")" 'BEGIN { exit !(a < b) }'; then
      best=$row
    fi
  done
  # summary columns: ranks,elements,order,dofs,steps,wall_s,dof_stages_per_s,
  #                  halo_bytes_per_stage,halo_wait_fraction_max,halo_wait_fraction_mean
  [ -z "$base" ] && base=$best # speedup and efficiency relative to the first rank count
  awk -F, -v base="$base" '{
    split(base, b, ",")
    speedup = b[6] / $6
    printf "| %d | %.2f | %.3e | %.2f | %.0f%% | %.0f | %.1f%% |\n", $1, $6, $7, speedup,
           100 * speedup * b[1] / $1, $8, 100 * $9
  }' <<<"$best"
done
