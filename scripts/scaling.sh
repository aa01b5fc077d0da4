#!/usr/bin/env bash
# Strong or weak scaling of dgsolve over rank counts: prints a markdown table (ranks, DOF, wall
# time, DOF-stages/s, speedup, efficiency, halo bytes per stage, waiting fractions) from the
# NAME_summary.csv that each run writes. The job is inputs/advect.yaml with a fixed step count.
#
#   scripts/scaling.sh                         # strong: 1 and 2 ranks, MPICH's mpiexec, build/
#   DG_WEAK=36 DG_MESH="-ny 32 -nz 32 -periodic xyz -warp 0.05" scripts/scaling.sh
#                                              # weak: n ranks run -nx 36n -Lx n (same elements)
# Speedup is the DOF-stages/s rate over the first rank count's; efficiency is speedup times
# first/this rank count. That is the strong-scaling time ratio for a fixed job, and the weak-
# scaling rate per rank for a job that grows with the ranks.
# Environment (all optional):
#   DG_BUILD_DIR    build directory holding src/dgsolve (default: build/ beside scripts/)
#   DG_MPIEXEC      launcher (default: mpiexec.mpich or mpiexec)
#   DG_MPIEXEC_ARGS extra launcher arguments, e.g. "--allow-run-as-root --oversubscribe" (OpenMPI)
#   DG_RANKS        rank counts (default: "1 2")
#   DG_MESH         mesh.box of the job (default: "-nx 8 -periodic xyz", the default job's)
#   DG_WEAK         weak scaling: elements in x per rank; n ranks get DG_MESH plus
#                   "-nx DG_WEAK*n -Lx n", so DG_MESH must not set -nx or -Lx (default: strong)
#   DG_STEPS        time steps per run (default: 100)
#   DG_ARGS         extra dgsolve arguments, e.g. "--set discretization.order=3"
#   DG_REPEAT       runs per rank count; the table shows the run of median wall time (default: 1)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${DG_BUILD_DIR:-$here/build}/src/dgsolve
[ -x "$bin" ] || { echo "scaling.sh: $bin not found: build dgsolve first (DG_BUILD_DIR)" >&2; exit 2; }
mpiexec=${DG_MPIEXEC:-$(command -v mpiexec.mpich || command -v mpiexec)}
read -r -a launcher_args <<<"${DG_MPIEXEC_ARGS:-}"
read -r -a extra <<<"${DG_ARGS:-}"
ranks=${DG_RANKS:-1 2}
mesh=${DG_MESH:--nx 8 -periodic xyz}
weak=${DG_WEAK:-}
steps=${DG_STEPS:-100}
repeat=${DG_REPEAT:-1}
if [ -n "$weak" ] && ! [[ "$weak" =~ ^[1-9][0-9]*$ ]]; then
  echo "scaling.sh: DG_WEAK=$weak: expected a positive whole number of elements in x per rank" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -n "$weak" ]; then
  echo "weak scaling: inputs/advect.yaml, mesh.box = \"$mesh -nx $weak*n -Lx n\" for n ranks, $steps steps, no output; $(date -u +%F)"
else
  echo "strong scaling: inputs/advect.yaml, mesh.box = \"$mesh\", $steps steps, no output; $(date -u +%F)"
fi
echo "launcher: $mpiexec ${DG_MPIEXEC_ARGS:-}; extra dgsolve arguments: ${DG_ARGS:-none}; median of $repeat"
echo
echo "| ranks | DOF | wall (s) | DOF-stages/s | speedup | efficiency | halo bytes/stage | halo wait (max over ranks) | packed-trace wait (max) |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
base=""
for n in $ranks; do
  job=$mesh
  [ -n "$weak" ] && job="$mesh -nx $((weak * n)) -Lx $n"
  rows=()
  for ((r = 0; r < repeat; ++r)); do
    dir="$work/np$n-$r"
    "$mpiexec" "${launcher_args[@]}" -n "$n" "$bin" "$here/inputs/advect.yaml" \
      --set "mesh.box=$job" --set "time.steps=$steps" --set output.snapshots=false \
      --set "output.directory=$dir" --set output.name=scaling -q "${extra[@]}" >/dev/null
    rows+=("$(tail -n 1 "$dir/scaling_summary.csv")")
  done
  # summary columns: ranks,elements,order,dofs,steps,wall_s,dof_stages_per_s,
  #                  halo_bytes_per_stage,halo_wait_fraction_max,halo_wait_fraction_mean,
  #                  halo_staging_fraction_max
  row=$(printf '%s\n' "${rows[@]}" | sort -t, -k6,6g | sed -n "$(((repeat + 1) / 2))p")
  [ -z "$base" ] && base=$row # speedup and efficiency relative to the first rank count
  awk -F, -v base="$base" '{
    split(base, b, ",")
    speedup = $7 / b[7]
    printf "| %d | %.2e | %.2f | %.3e | %.2f | %.0f%% | %.0f | %.1f%% | %.1f%% |\n", $1, $4, $6, $7,
           speedup, 100 * speedup * b[1] / $1, $8, 100 * $9, 100 * $11
  }' <<<"$row"
done
