#!/usr/bin/env python3
"""Figures (and markdown tables) of `dgbench transforms --csv FILE` runs, in the style of the
DGM paper's Figs. 4.1-4.4: backward_transform and inner_product on one GPU against the CPU.

Usage (every argument has a default: the files in docs/data, figures into docs/):

    /usr/bin/python3 postprocess/plot_transforms.py [GPU.csv] [--cpu1 CPU1.csv]
        [--cpu16 CPU16.csv] [--tuning CSV...] [--one-element CSV] [-o OUTDIR] [--tables]

    # docs/transforms_{dofs,speedup,bandwidth}.png and the tables of docs/performance.md:
    /usr/bin/python3 postprocess/plot_transforms.py --tables

GPU.csv (docs/data/transforms_h100.csv) comes from `dgbench transforms --variants conc3
--team-elems 0 --transfer`: the default concurrent kernel at E = 8..512 and ~1e8 DOF, with the
host<->device transfer. CPU1.csv / CPU16.csv (docs/data/transforms_cpu_{1rank,16ranks}.csv):
the same bench built for the CPU at 1 and 16 MPI ranks. --tuning
(docs/data/transforms_h100_tuning.csv): the concurrent kernels over elements and threads per
team. --one-element (docs/data/transforms_h100_one_element.csv): the kernels that take a
team's elements one after another (blocked, entry, runtime). Writes into OUTDIR:

* transforms_dofs.png: DOF/s against E (log-log) for several p, GPU kernel only (solid) and
  with the host<->device transfer of input and output (dashed); one panel per operator.
* transforms_speedup.png: GPU rate over CPU rate against p, at E = 512 and at the largest size
  of each run (GPU ~1e8 DOF, CPU ~2e6 DOF per rank), with and without the transfer.
* transforms_bandwidth.png: bytes (input + output once) per second over the 2.99 TB/s copy
  roofline at ~1e8 DOF against p: the default kernel, its best configuration per p (--tuning)
  and the best one-element-at-a-time kernel (--one-element).

The "largest size" of a run is, for each (op, p), the element count that is not one of the
paper's sizes 8..512. Speedups compare rates (DOF/s, all ranks together), each platform at its
best variant. GPU "with transfer" times copy the input to the device, run the kernel and copy
the output back; the CPU rates are kernel only. --tables prints the markdown tables quoted in
docs/performance.md.
"""
import argparse
import csv
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PAPER_SIZES = {8, 16, 32, 64, 128, 256, 512}
COPY_ROOFLINE_GBS = 2990.0  # device-to-device copy on the H100, bytes read + written
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, os.pardir, "docs", "data"))
DOCS = os.path.normpath(os.path.join(HERE, os.pardir, "docs"))
OPS = ("backward", "inner")


def read(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            for k in ("p", "q", "E", "dof", "team_elems", "ranks"):
                if r.get(k):
                    r[k] = int(float(r[k]))
            for k in ("time_s", "dof_per_s", "gflops", "bytes", "gb_per_s", "frac_copy_bw",
                      "time_with_transfer_s", "dof_per_s_with_transfer"):
                if r.get(k) not in (None, ""):
                    r[k] = float(r[k])
                else:
                    r[k] = None
            rows.append(r)
    return rows


def big_E(rows, op, p):
    es = [r["E"] for r in rows if r["op"] == op and r["p"] == p and r["E"] not in PAPER_SIZES]
    return max(es) if es else None


def pick(rows, op, p, E, key="dof_per_s"):
    """The row with the best `key` among the variants at (op, p, E)."""
    c = [r for r in rows if r["op"] == op and r["p"] == p and r["E"] == E and r[key] is not None]
    return max(c, key=lambda r: r[key]) if c else None


def orders(rows):
    return sorted({r["p"] for r in rows})


def plot_dofs(gpu, out, ps=(1, 2, 4, 6, 8, 12, 15)):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    cmap = plt.get_cmap("viridis")
    for ax, op in zip(axes, OPS):
        for i, p in enumerate(ps):
            Es = sorted({r["E"] for r in gpu if r["op"] == op and r["p"] == p})
            if not Es:
                continue
            col = cmap(i / max(1, len(ps) - 1))
            k = [pick(gpu, op, p, E)["dof_per_s"] for E in Es]
            ax.loglog(Es, k, "o-", color=col, ms=3, label=f"p = {p}")
            t = [pick(gpu, op, p, E, "dof_per_s_with_transfer") for E in Es]
            if all(x is not None for x in t):
                ax.loglog(Es, [x["dof_per_s_with_transfer"] for x in t], "s--", color=col, ms=2,
                          alpha=0.7)
        ax.set_title(f"{op}: solid kernel only, dashed with transfer")
        ax.set_xlabel("elements E")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("DOF/s (best variant, median)")
    axes[1].legend(fontsize=8, ncol=2)
    fig.suptitle("dgbench transforms on one GPU")
    return save(fig, out, "transforms_dofs.png")


def speedups(gpu, cpu, op, at):
    """(p, kernel-only speedup, with-transfer speedup, gpu row, cpu row) per p."""
    res = []
    for p in orders(gpu):
        Eg = 512 if at == 512 else big_E(gpu, op, p)
        Ec = 512 if at == 512 else big_E(cpu, op, p)
        g = pick(gpu, op, p, Eg)
        gt = pick(gpu, op, p, Eg, "dof_per_s_with_transfer")
        c = pick(cpu, op, p, Ec)
        if g is None or c is None:
            continue
        res.append((p, g["dof_per_s"] / c["dof_per_s"],
                    gt["dof_per_s_with_transfer"] / c["dof_per_s"] if gt else None, g, c))
    return res


def plot_speedup(gpu, cpus, out):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    styles = {"1 core": "o", "16 ranks": "s"}
    for ax, op in zip(axes, OPS):
        for name, cpu in cpus.items():
            for at, col in ((512, "tab:blue"), ("big", "tab:red")):
                s = speedups(gpu, cpu, op, at)
                if not s:
                    continue
                lab = f"vs CPU {name}, " + ("E = 512" if at == 512 else "largest size")
                ps = [x[0] for x in s]
                ls = "-" if name == "1 core" else ":"
                ax.semilogy(ps, [x[1] for x in s], ls, marker=styles.get(name, "o"), color=col,
                            ms=4, label=lab + ", kernel")
                if all(x[2] is not None for x in s):
                    ax.semilogy(ps, [x[2] for x in s], ls, marker=styles.get(name, "o"),
                                color=col, mfc="none", ms=4, alpha=0.6,
                                label=lab + ", with transfer")
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_title(op)
        ax.set_xlabel("order p (q = p + 2)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("GPU DOF/s / CPU DOF/s")
    axes[1].legend(fontsize=7)
    fig.suptitle("GPU speedup over the CPU (filled: kernel only; open: GPU time includes the "
                 "host<->device transfer)", fontsize=10)
    return save(fig, out, "transforms_speedup.png")


def save(fig, out, name, layout=True):
    """Lays out (unless done), writes out/name and closes the figure; returns the path."""
    if layout:
        fig.tight_layout()
    path = os.path.join(out, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def bandwidth_axes(ax, title, ymax):
    """A fraction-of-copy-bandwidth panel against p, with the 70% target line."""
    ax.axhline(0.7, color="k", ls="--", lw=0.8, label="70% of the roofline")
    ax.set_title(title)
    ax.set_xlabel("order p (q = p + 2)")
    ax.set_ylim(0, ymax)
    ax.grid(True, alpha=0.3)


def best_fraction(rows, op, variants=None):
    """(p, best row) at ~1e8 DOF (more than 5e7) per p, over the given variants (None: all)."""
    res = []
    for p in orders(rows):
        c = [r for r in rows if r["op"] == op and r["p"] == p and r["dof"] > 5e7
             and (variants is None or r["variant"] in variants) and r["gb_per_s"] is not None]
        if c:
            res.append((p, max(c, key=lambda r: r["gb_per_s"])))
    return res


def plot_bandwidth(gpu, tuning, one_element, out):
    """Bytes per second over the 2.99 TB/s copy roofline at ~1e8 DOF against p: the default
    concurrent kernel, its best configuration per p, and the one-element-at-a-time kernels."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    lines = [("conc3, default elements and threads per team", gpu, None, "o-")]
    if tuning:
        lines.append(("best concurrent configuration (conc2, conc3; elements, threads)", tuning,
                      None, "s-"))
    if one_element:
        lines.append(("best one-element-at-a-time kernel (blocked, entry)", one_element,
                      ("blocked", "entry"), "x:"))
    for ax, op in zip(axes, OPS):
        for lab, src, variants, style in lines:
            pts = best_fraction(src, op, variants)
            ax.plot([p for p, _ in pts], [r["gb_per_s"] / COPY_ROOFLINE_GBS for _, r in pts],
                    style, ms=4, label=lab)
        bandwidth_axes(ax, f"{op}, ~1e8 DOF", 1.05)
    axes[0].set_ylabel("GB/s (input + output) / 2990 GB/s")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.suptitle("Transforms on one H100: fraction of the copy roofline")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8)
    return save(fig, out, "transforms_bandwidth.png", layout=False)


def config(r):
    """variant/elements per team/threads per team (0: the default)."""
    return f"{r['variant']}/{r['team_elems']}/{r.get('team_size') or 0}"


def tables(gpu, cpus, tuning):
    print("\nAt ~1e8 DOF: GB/s, fraction of 2.99 TB/s, GFLOP/s (default conc3) and the best "
          "configuration per p\n")
    head = []
    for op in OPS:
        head += [f"{op}: default", f"{op}: best (variant/NE/threads)"]
    print("| p | " + " | ".join(head) + " |")
    print("|---:|" + "---:|" * len(head))
    default = {op: dict(best_fraction(gpu, op)) for op in OPS}
    best = {op: dict(best_fraction(tuning or [], op)) for op in OPS}
    for p in orders(gpu):
        cells = []
        for op in OPS:
            r = default[op].get(p)
            cells.append("" if r is None else f"{r['gb_per_s']:.0f} / "
                         f"{100 * r['gb_per_s'] / COPY_ROOFLINE_GBS:.0f}% / {r['gflops']:.0f}")
            b = best[op].get(p)
            cells.append("" if b is None else f"{b['gb_per_s']:.0f} / "
                         f"{100 * b['gb_per_s'] / COPY_ROOFLINE_GBS:.0f}% ({config(b)})")
        print(f"| {p} | " + " | ".join(cells) + " |")
    for op in OPS:
        print(f"\n{op}: GPU speedup (kernel only / GPU with transfer), best variant each side\n")
        cols = []
        for name, cpu in cpus.items():
            for at in (512, "big"):
                cols.append((f"vs {name}, " + ("E=512" if at == 512 else "largest"),
                             {x[0]: x for x in speedups(gpu, cpu, op, at)}))
        print("| p | " + " | ".join(c[0] for c in cols) + " |")
        print("|---:|" + "---:|" * len(cols))
        for p in orders(gpu):
            cells = []
            for _, d in cols:
                x = d.get(p)
                cells.append("" if x is None else
                             f"{x[1]:.3g} / {x[2]:.3g}" if x[2] is not None else f"{x[1]:.3g}")
            print(f"| {p} | " + " | ".join(cells) + " |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("gpu", nargs="?", default=os.path.join(DATA, "transforms_h100.csv"),
                    help="CSV of dgbench transforms on the GPU (with --transfer)")
    ap.add_argument("--cpu1", default=os.path.join(DATA, "transforms_cpu_1rank.csv"),
                    help="CSV of the CPU build at 1 rank ('' for none)")
    ap.add_argument("--cpu16", default=os.path.join(DATA, "transforms_cpu_16ranks.csv"),
                    help="CSV of the CPU build at 16 ranks ('' for none)")
    ap.add_argument("--tuning", nargs="*",
                    default=[os.path.join(DATA, "transforms_h100_tuning.csv")],
                    help="CSVs of the concurrent kernels over elements and threads per team")
    ap.add_argument("--one-element", default=os.path.join(DATA, "transforms_h100_one_element.csv"),
                    help="CSV of the one-element-at-a-time kernels ('' for none)")
    ap.add_argument("-o", "--outdir", default=DOCS, help="folder for the PNGs")
    ap.add_argument("--tables", action="store_true", help="print markdown tables")
    a = ap.parse_args(argv)
    gpu = read(a.gpu)
    cpus = {}
    if a.cpu1:
        cpus["1 core"] = read(a.cpu1)
    if a.cpu16:
        cpus["16 ranks"] = read(a.cpu16)
    tuning = [r for path in a.tuning for r in read(path)]
    one_element = read(a.one_element) if a.one_element else []
    os.makedirs(a.outdir, exist_ok=True)
    print(plot_dofs(gpu, a.outdir))
    if cpus:
        print(plot_speedup(gpu, cpus, a.outdir))
    print(plot_bandwidth(gpu, tuning, one_element, a.outdir))
    if a.tables:
        tables(gpu, cpus, tuning)


if __name__ == "__main__":
    main()
