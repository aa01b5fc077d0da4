#!/usr/bin/env python3
"""Plots of `dgbench integrate --csv FILE`: GFLOP/s against p, one panel per operator, one line
per variant (tensor representation and quadrature variants); a second figure with the
element_matrix / matrix_free right-hand-side times when the CSV has those rows.

    /usr/bin/python3 postprocess/plot_integrate.py integrate.csv -o integrate.png
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(row, key):
    v = row.get(key, "")
    return float(v) if v not in ("", None) else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("csv", help="CSV written by dgbench integrate --csv")
    ap.add_argument("-o", "--output", default="integrate.png", help="figure file (GFLOP/s vs p)")
    ap.add_argument("--rhs-output", default=None,
                    help="figure of the RHS comparison (default: <output stem>_rhs.png)")
    ap.add_argument("--title", default="", help="title prefix, e.g. the machine")
    a = ap.parse_args(argv)

    rows = read_rows(a.csv)
    kernel_rows = [r for r in rows if r.get("path") in ("tensor", "quadrature")]
    rhs_rows = [r for r in rows if r.get("op") == "rhs"]
    if not kernel_rows and not rhs_rows:
        sys.exit(f"{a.csv}: no dgbench integrate rows")

    ops = []
    for r in kernel_rows:
        if r["op"] not in ops:
            ops.append(r["op"])
    if ops:
        fig, axes = plt.subplots(1, len(ops), figsize=(4.2 * len(ops), 3.8), squeeze=False)
        for ax, op in zip(axes[0], ops):
            variants = []
            for r in kernel_rows:
                if r["op"] == op and r["variant"] not in variants:
                    variants.append(r["variant"])
            for v in variants:
                pts = sorted((int(r["p"]), num(r, "gflops")) for r in kernel_rows
                             if r["op"] == op and r["variant"] == v)
                style = "k-o" if v == "tensor" else "-s"
                ax.plot([p for p, _ in pts], [g for _, g in pts], style, label=v, ms=4)
            ax.set_title(op)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel("p")
            ax.set_ylabel("GFLOP/s")
            ax.set_yscale("log")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        fig.suptitle((a.title + ": " if a.title else "") + "element integration, GFLOP/s vs p")
        fig.tight_layout()
        fig.savefig(a.output, dpi=120)
        print(f"wrote {a.output}")

    if rhs_rows:
        out = a.rhs_output or a.output.rsplit(".", 1)[0] + "_rhs.png"
        ps = [int(r["p"]) for r in rhs_rows]
        fig, ax = plt.subplots(figsize=(5, 3.8))
        per = [num(r, "t_rhs_matrix_free_s") / num(r, "elements") for r in rhs_rows]
        pem = [num(r, "t_rhs_element_matrix_s") / num(r, "elements") for r in rhs_rows]
        ax.semilogy(ps, per, "-o", label="matrix_free")
        ax.semilogy(ps, pem, "-s", label="element_matrix (batched GEMV)")
        ax.set_xlabel("p")
        ax.set_ylabel("RHS time per element [s]")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        ax.set_title((a.title + ": " if a.title else "") + "right-hand side")
        fig.tight_layout()
        fig.savefig(out, dpi=120)
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
