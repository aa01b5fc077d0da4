#!/usr/bin/env python3
"""Plots of `dgbench integrate --csv FILE`: GFLOP/s against p, one panel per operator, one line
per variant (tensor representation and quadrature variants); a second figure with the
element_matrix / matrix_free right-hand-side times when the CSV has those rows; and from the
--gpu CSVs the best fraction of the roofline (min(2.99 TB/s x flop per byte, 32.5 TFLOP/s)) per
operator and p, for the batched tensor path and the sum-factorised quadrature path.

    /usr/bin/python3 postprocess/plot_integrate.py [integrate.csv] [-o integrate.png]

    # docs/integrate_cpu.png, docs/integrate_cpu_rhs.png and docs/integrate_h100.png (the
    # defaults; the GPU CSVs are docs/data/integrate_h100_{tensor,sumfact}.csv):
    /usr/bin/python3 postprocess/plot_integrate.py [--tables]

The default CSV, docs/data/integrate_cpu.csv, comes from `dgbench integrate --orders 1:4
--elements 2000 --gflop 0.2 --max-mb 500 --reps 3 --rhs-orders 1:6 --rhs-nx 8 --rhs-gflop 3` on
one core of the development machine (docs/integration.md).
"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, os.pardir, "docs", "data"))
DOCS = os.path.normpath(os.path.join(HERE, os.pardir, "docs"))

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


COPY_ROOFLINE_GBS = 2990.0  # H100 device-to-device copy, bytes read + written
FP64_GFLOPS = 32500.0  # H100 FP64 FMA, Kokkos kernel


def roofline_fraction(row):
    """GFLOP/s over min(copy roofline x flop per byte, FP64 peak); for a bandwidth-bound kernel
    that is GB/s over 2990."""
    ai = num(row, "gflops") / num(row, "gbs")
    return num(row, "gflops") / min(COPY_ROOFLINE_GBS * ai, FP64_GFLOPS)


def plot_roofline(rows, out):
    """Best fraction of its roofline per operator and p: tensor path and sum-factorised path."""
    panels = [("tensor-batched", "tensor representation (affine hexes), batched"),
              ("quadrature", "sum-factorised quadrature (any trilinear hex)")]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    ops = []
    for r in rows:
        if r["op"] not in ops:
            ops.append(r["op"])
    for ax, (path, title) in zip(axes, panels):
        for i, op in enumerate(ops):
            best = {}
            for r in rows:
                if r["path"] == path and r["op"] == op and num(r, "gbs"):
                    p = int(r["p"])
                    best[p] = max(best.get(p, 0.0), roofline_fraction(r))
            ps = sorted(best)
            ax.plot(ps, [best[p] for p in ps], "o-", ms=4, color=f"C{i}", label=op)
        ax.axhline(0.6, color="k", ls="--", lw=0.8, label="60%")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("p")
        ax.set_ylim(0, 1)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("fraction of roofline (2.99 TB/s, 32.5 TFLOP/s)")
    fig.suptitle("Element matrices on one H100: best variant per operator and p")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    print(f"wrote {out}")


def roofline_table(rows):
    """Markdown table: best fraction of the roofline per operator (rows) and p (columns), for
    each path, with the variant and element count of the best row."""
    for path in ("tensor-batched", "quadrature"):
        sub = [r for r in rows if r["path"] == path and num(r, "gbs")]
        if not sub:
            continue
        ps = sorted({int(r["p"]) for r in sub})
        print(f"\n{path}: % of the roofline (GB/s or GFLOP/s)\n")
        print("| operator | " + " | ".join(f"p = {p}" for p in ps) + " |")
        print("|---|" + "---:|" * len(ps))
        ops = []
        for r in sub:
            if r["op"] not in ops:
                ops.append(r["op"])
        for op in ops:
            cells = []
            for p in ps:
                c = [r for r in sub if r["op"] == op and int(r["p"]) == p]
                b = max(c, key=roofline_fraction)
                bw_bound = COPY_ROOFLINE_GBS * num(b, "gflops") / num(b, "gbs") < FP64_GFLOPS
                fig = f"{num(b, 'gbs'):.0f} GB/s" if bw_bound else f"{num(b, 'gflops'):.0f} GF/s"
                cells.append(f"{100 * roofline_fraction(b):.0f}% ({fig})")
            print(f"| {op} | " + " | ".join(cells) + " |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("csv", nargs="?", default=os.path.join(DATA, "integrate_cpu.csv"),
                    help="CSV written by dgbench integrate --csv")
    ap.add_argument("-o", "--output", default=os.path.join(DOCS, "integrate_cpu.png"),
                    help="figure file (GFLOP/s vs p)")
    ap.add_argument("--rhs-output", default=None,
                    help="figure of the RHS comparison (default: <output stem>_rhs.png)")
    ap.add_argument("--title", default="CPU, 1 core (Kokkos Serial)",
                    help="title prefix, e.g. the machine")
    ap.add_argument("--gpu", nargs="*", default=[os.path.join(DATA, "integrate_h100_tensor.csv"),
                                                 os.path.join(DATA, "integrate_h100_sumfact.csv")],
                    help="GPU CSVs for the roofline figure (none: no such figure)")
    ap.add_argument("--gpu-output", default=os.path.join(DOCS, "integrate_h100.png"),
                    help="roofline figure of the GPU CSVs")
    ap.add_argument("--tables", action="store_true",
                    help="print the GPU roofline table (docs/performance.md)")
    a = ap.parse_args(argv)

    if a.gpu:
        gpu_rows = [r for path in a.gpu for r in read_rows(path)]
        plot_roofline(gpu_rows, a.gpu_output)
        if a.tables:
            roofline_table(gpu_rows)
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
