#!/usr/bin/env python3
"""Figure (and markdown tables) of `dgbench stage --csv FILE` runs: DOF-stages per second
against p, one panel per physics, one line per mesh and variant (the median over repeated runs,
with their spread as error bars), and the bandwidth bound of each line: the 2.99 TB/s copy
roofline of the H100 over the bytes per DOF that fixed::stage_bytes_per_dof counts.

Usage (every argument has a default: the files in docs/data, the figure into docs/):

    /usr/bin/python3 postprocess/plot_stage.py [STAGE.csv ...] [-o FIGURE.png] [--tables]

    # docs/stage_h100.png and the tables of docs/performance.md:
    /usr/bin/python3 postprocess/plot_stage.py --tables

The default CSVs are docs/data/stage_h100.csv (three runs of `dgbench stage --mesh affine
--steps 5`, told apart by the `run` column) and docs/data/stage_h100_warped.csv (`dgbench stage
--mesh warped --steps 3`). Rows with the same physics, mesh, p and settings (variant, team
size, elements per team, launch bounds) are repetitions; a setting that varies within the
files is named in the line's label.
"""
import argparse
import csv
import os
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COPY_ROOFLINE_GBS = 2990.0  # device-to-device copy on the H100, bytes read + written
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, os.pardir, "docs", "data"))
DOCS = os.path.normpath(os.path.join(HERE, os.pardir, "docs"))
PHYSICS = {"advection": "advection", "advection-linear": "advection, linear velocity field",
           "advection-rotation": "advection, rotation", "advection-inflow": "advection, inflow face",
           "advection-field": "advection, velocity field", "advdiff": "advection-diffusion (nu = 0.01)"}
SETTINGS = ("variant", "team_size", "modal_elems", "modal_batches", "pencil_bounds", "batch")


def read(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            r["p"] = int(r["p"])
            for k in ("dof", "step_s", "dof_stages_per_s", "bytes_per_dof", "gb_per_s",
                      "bound_dof_stages_per_s", "frac_bound", "gflops"):
                if r.get(k):
                    r[k] = float(r[k])
            rows.append(r)
    return rows


def lines(rows):
    """{(physics, mesh, settings): {p: [rows]}}; settings names the settings that vary among the
    rows of one physics and mesh ("" where none does)."""
    varying = {}
    for pm in {(r["physics"], r["mesh"]) for r in rows}:
        sub = [r for r in rows if (r["physics"], r["mesh"]) == pm]
        varying[pm] = [k for k in SETTINGS if len({r.get(k, "") for r in sub}) > 1]
    res = {}
    for r in rows:
        pm = (r["physics"], r["mesh"])
        settings = ", ".join(f"{k} {r.get(k, '')}" for k in varying[pm])
        res.setdefault(pm + (settings,), {}).setdefault(r["p"], []).append(r)
    order = list(PHYSICS)
    rank = lambda ph: order.index(ph) if ph in order else len(order)  # noqa: E731
    return dict(sorted(res.items(), key=lambda kv: (rank(kv[0][0]),) + kv[0][1:]))


def label(key):
    _, mesh, settings = key
    return mesh + (f", {settings}" if settings else "")


def bound(r):
    """DOF-stages/s the 2.99 TB/s roofline allows at this row's bytes per DOF."""
    return COPY_ROOFLINE_GBS * 1e9 / r["bytes_per_dof"]


def plot(rows, out):
    groups = lines(rows)
    phys = [ph for ph in PHYSICS if any(k[0] == ph for k in groups)]
    fig, axes = plt.subplots(1, len(phys), figsize=(6 * len(phys), 4.8), squeeze=False,
                             sharey=True)
    for ax, ph in zip(axes[0], phys):
        for i, (key, by_p) in enumerate(k for k in groups.items() if k[0][0] == ph):
            col = f"C{i}"
            ps = sorted(by_p)
            vals = [[r["dof_stages_per_s"] for r in by_p[p]] for p in ps]
            med = [statistics.median(v) for v in vals]
            err = [[m - min(v) for m, v in zip(med, vals)], [max(v) - m for m, v in zip(med, vals)]]
            ax.errorbar(ps, med, yerr=err, fmt="o-", ms=4, capsize=3, color=col,
                        label=label(key) + (f" (median of {len(vals[0])} runs)"
                                            if len(vals[0]) > 1 else ""))
            ax.plot(ps, [bound(by_p[p][0]) for p in ps], "--", color=col, lw=1,
                    label=label(key) + ": bandwidth bound")
        ax.set_yscale("log")
        ax.set_title(PHYSICS[ph])
        ax.set_xlabel("order p (q = p + 2)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    axes[0][0].set_ylabel("DOF-stages/s")
    fig.suptitle("dgbench stage: one LSRK(5,4) stage, ~8.4e6 DOF, one H100 "
                 "(dashed: 2.99 TB/s / bytes per DOF)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    print(out)


def tables(rows):
    print("\n| physics | mesh | settings | p | DOF-stages/s (runs) | median | bytes/DOF "
          "| % of bound | GFLOP/s |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for (ph, mesh, settings), by_p in lines(rows).items():
        for p in sorted(by_p):
            rs = by_p[p]
            v = [r["dof_stages_per_s"] for r in rs]
            m = statistics.median(v)
            g = statistics.median(r["gflops"] for r in rs)
            print(f"| {ph} | {mesh} | {settings} | {p} | {' / '.join(f'{x:.3g}' for x in v)} | "
                  f"{m:.3g} | {rs[0]['bytes_per_dof']:.1f} | {100 * m / bound(rs[0]):.0f}% | "
                  f"{g:.0f} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("csv", nargs="*", default=[os.path.join(DATA, "stage_h100.csv"),
                                               os.path.join(DATA, "stage_h100_warped.csv")],
                    help="CSVs written by dgbench stage --csv")
    ap.add_argument("-o", "--output", default=os.path.join(DOCS, "stage_h100.png"),
                    help="figure file")
    ap.add_argument("--tables", action="store_true", help="print markdown tables")
    a = ap.parse_args(argv)
    rows = [r for path in a.csv for r in read(path)]
    plot(rows, a.output)
    if a.tables:
        tables(rows)


if __name__ == "__main__":
    main()
