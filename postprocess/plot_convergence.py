#!/usr/bin/python3
"""Convergence plot: L2 error against element size h, one panel per case and one line per
order p, each line labelled with its observed order and drawn beside a reference slope h^(p+1).

    /usr/bin/python3 postprocess/plot_convergence.py out.png build/convergence/*.csv
    /usr/bin/python3 postprocess/plot_convergence.py out.png build/convergence

Inputs are the CSVs the convergence tests write (<build>/convergence/<case>.csv, columns
case,p,n,h,l2_error,order; a directory means all its *.csv). The script checks each file:
the order column must agree with log(e_i/e_j)/log(h_i/h_j) of consecutive rows.

Also accepted, for dgsolve's own run logs: LABEL:CSV:N arguments (CSV a dgsolve log, its last
l2_error taken, N the elements per direction, h = 1/N), one line per LABEL.

Exit status: 0 on success, 1 on bad input, 77 when matplotlib is not installed (ctest skip)."""
import csv
import glob
import math
import os
import sys
from collections import defaultdict

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
except ImportError:
    print("plot_convergence.py: matplotlib is not installed; skipping", file=sys.stderr)
    sys.exit(77)


def fail(msg):
    print(f"plot_convergence.py: {msg}", file=sys.stderr)
    sys.exit(1)


def read_study(path, series):
    """Rows of a convergence CSV into series[case][p] = [(h, error)], checking the orders."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    need = {"case", "p", "n", "h", "l2_error", "order"}
    if not rows or not need <= set(rows[0]):
        fail(f"{path}: expected a header with {sorted(need)} and at least one row")
    prev = {}
    for i, r in enumerate(rows, start=2):
        try:
            key = (r["case"], int(r["p"]))
            h, e = float(r["h"]), float(r["l2_error"])
        except ValueError as ex:
            fail(f"{path}:{i}: {ex}")
        if not (h > 0 and e > 0 and math.isfinite(e)):
            fail(f"{path}:{i}: h = {h}, l2_error = {e}: both must be positive and finite")
        if r["order"].strip():
            if key not in prev:
                fail(f"{path}:{i}: an order without a coarser row of {key}")
            h0, e0 = prev[key]
            rate = math.log(e0 / e) / math.log(h0 / h)
            if abs(rate - float(r["order"])) > 1e-6 * max(1.0, abs(rate)):
                fail(f"{path}:{i}: order {r['order']} but the errors give {rate:.8f}")
        prev[key] = (h, e)
        series[key[0]][key[1]].append((h, e))


def read_log_spec(spec, series):
    label, path, n = spec.rsplit(":", 2)
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        fail(f"{path}: no rows")
    series["dgsolve runs"][label].append((1.0 / float(n), float(rows[-1]["l2_error"])))


def main(dst, args):
    series = defaultdict(lambda: defaultdict(list))
    files = []
    for a in args:
        if os.path.isdir(a):
            files += sorted(glob.glob(os.path.join(a, "*.csv")))
        elif a.count(":") >= 2 and not os.path.exists(a):
            read_log_spec(a, series)
        else:
            files.append(a)
    for f in files:
        read_study(f, series)
    if not series:
        fail("no data")

    cases = sorted(series)
    ncol = min(3, len(cases))
    nrow = (len(cases) + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.2 * ncol, 3.6 * nrow), squeeze=False)
    for ax, case in zip(axes.flat, cases):
        for k, (p, pts) in enumerate(sorted(series[case].items(), key=lambda kv: str(kv[0]))):
            pts = sorted(set(pts), reverse=True)  # coarse to fine: the last rate is the finest pair
            h = [x for x, _ in pts]
            e = [y for _, y in pts]
            rates = [math.log(e[i] / e[i + 1]) / math.log(h[i] / h[i + 1])
                     for i in range(len(h) - 1)]
            text = " ".join(f"{r:.2f}" for r in rates)
            print(f"{case}: p = {p}: h {' '.join(f'{v:.4g}' for v in h)}, "
                  f"errors {' '.join(f'{v:.3e}' for v in e)}, orders {text}")
            color = f"C{k % 10}"
            label = f"p = {p}: {rates[-1]:.2f}" if rates else f"p = {p}"
            ax.loglog(h, e, "o-", color=color, label=label)
            if isinstance(p, int) and len(h) > 1:
                # Reference slope p+1 through the finest point, over the same h range.
                ref = [e[-1] * (x / h[-1]) ** (p + 1) for x in h]
                ax.loglog(h, [0.5 * r for r in ref], ":", color=color, lw=1)
        hs = sorted({x for pts in series[case].values() for x, _ in pts})
        ax.set_xticks(hs)
        ax.set_xticklabels([f"1/{1 / x:.3g}" for x in hs])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(case, fontsize=10)
        ax.set_xlabel("h")
        ax.set_ylabel("L2 error")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, title="observed order (finest pair)", title_fontsize=7)
    for ax in list(axes.flat)[len(cases):]:
        ax.axis("off")
    fig.suptitle("h-convergence (dotted: slope p+1)", fontsize=10)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    if not os.path.getsize(dst) > 0:
        fail(f"{dst}: empty figure")
    print(f"plot_convergence.py: wrote {dst}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
