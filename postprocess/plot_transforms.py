#!/usr/bin/env python3
"""Figures (and markdown tables) of `dgbench transforms --csv FILE` runs, in the style of the
DGM paper's Figs. 4.1-4.4: backward_transform and inner_product on one GPU against the CPU.

Usage:

    /usr/bin/python3 postprocess/plot_transforms.py GPU.csv [--cpu1 CPU1.csv] [--cpu16 CPU16.csv]
        [-o OUTDIR] [--tables]

    # the figures in docs/ were made with
    /usr/bin/python3 postprocess/plot_transforms.py docs/data/transforms_h100.csv \
        --cpu1 docs/data/transforms_cpu_1rank.csv --cpu16 docs/data/transforms_cpu_16ranks.csv \
        -o docs --tables

GPU.csv comes from `dgbench transforms --variants blocked,entry,runtime --team-elems 1,4
--transfer`; CPU1.csv / CPU16.csv from the same bench built for the CPU at 1 and N MPI ranks.
Writes into OUTDIR:

* transforms_dofs.png: DOF/s against E (log-log) for several p, GPU kernel only (solid) and
  with the host<->device transfer of input and output (dashed); one panel per operator. The best
  variant / elements-per-team at each point.
* transforms_speedup.png: GPU rate over CPU rate against p, at E = 512 and at the largest size
  of each run (GPU ~1e8 DOF, CPU ~2e6 DOF per rank), with and without the transfer.
* transforms_bandwidth.png: fraction of the measured copy bandwidth against p at the largest
  GPU size, one line per variant (blocked, entry with 1 and 4 elements per team, runtime).
* transforms_concurrent.png (with --concurrent CSV...): the same fraction for the best of the
  one-element-at-a-time kernels (blocked, entry) and of the concurrent ones (conc, conc2,
  conc3, conc-entry, any elements per team and team size) over all the CSVs given, e.g.

      /usr/bin/python3 postprocess/plot_transforms.py docs/data/transforms_h100.csv -o docs \
          --concurrent docs/data/transforms_h100_conc.csv docs/data/transforms_h100_conc3.csv \
          docs/data/transforms_h100_p8_sweep.csv docs/data/transforms_h100_conc_high.csv \
          --current docs/data/transforms_h100_s7_conc.csv docs/data/transforms_h100_s7_p8_sweep.csv

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
            r["label"] = r["variant"] + ("" if r["variant"] == "runtime" else
                                         f"/{r['team_elems']}")
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


def bandwidth(gpu, op):
    """label -> [(p, row)] at the largest size."""
    res = {}
    for p in orders(gpu):
        E = big_E(gpu, op, p)
        for r in gpu:
            if r["op"] == op and r["p"] == p and r["E"] == E:
                res.setdefault(r["label"], []).append((p, r))
    return res


def save(fig, out, name):
    """Lays out, writes out/name and closes the figure; returns the path."""
    fig.tight_layout()
    path = os.path.join(out, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def bandwidth_axes(ax, title, ymax):
    """A fraction-of-copy-bandwidth panel against p, with the 70% target line."""
    ax.axhline(0.7, color="k", ls="--", lw=0.8, label="target 70%")
    ax.set_title(title)
    ax.set_xlabel("order p (q = p + 2)")
    ax.set_ylim(0, ymax)
    ax.grid(True, alpha=0.3)


def plot_bandwidth(gpu, out):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, op in zip(axes, OPS):
        for lab, pts in sorted(bandwidth(gpu, op).items()):
            ax.plot([p for p, _ in pts], [r["frac_copy_bw"] for _, r in pts], "o-", ms=4,
                    label=lab)
        bandwidth_axes(ax, f"{op}, ~1e8 DOF", 1.0)
    axes[0].set_ylabel("fraction of measured copy bandwidth")
    axes[1].legend(fontsize=8, title="variant/elements per team", title_fontsize=8)
    fig.suptitle("Transforms: bytes (input + output) per second over the copy bandwidth")
    return save(fig, out, "transforms_bandwidth.png")


def plot_concurrent(rows, out, current=None):
    """Best fraction of the copy bandwidth at ~1e8 DOF: sequential vs concurrent kernels, and
    (current: rows of later runs) the concurrent kernels as they are now."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    conc = ("conc", "conc2", "conc3", "conc-entry")
    groups = {"one element after another (blocked, entry)": (rows, ("blocked", "entry")),
              "concurrent elements (conc, conc2, conc3, conc-entry)": (rows, conc)}
    if current:
        groups["concurrent, x contraction in place (session 7)"] = (current, conc)
    for ax, op in zip(axes, OPS):
        for lab, (src, variants) in groups.items():
            pts = []
            for p in orders(src):
                c = [r for r in src if r["op"] == op and r["p"] == p and r["dof"] > 5e7
                     and r["variant"] in variants and r["frac_copy_bw"] is not None]
                if c:
                    pts.append((p, max(r["frac_copy_bw"] for r in c)))
            ax.plot([p for p, _ in pts], [f for _, f in pts], "o-", ms=4, label=lab)
        bandwidth_axes(ax, f"{op}, ~1e8 DOF, best configuration per p", 1.15)
    axes[0].set_ylabel("fraction of measured copy bandwidth")
    axes[1].legend(fontsize=8)
    fig.suptitle("Transforms on one H100: concurrent elements per team")
    return save(fig, out, "transforms_concurrent.png")


def tables(gpu, cpus):
    for op in OPS:
        bw = bandwidth(gpu, op)
        labs = sorted(bw)
        print(f"\n{op}, largest GPU size: GB/s / fraction of copy bandwidth / GFLOP/s\n")
        print("| p | DOF | " + " | ".join(labs) + " |")
        print("|---:|---:|" + "---:|" * len(labs))
        ps = [p for p, _ in bw[labs[0]]]
        for i, p in enumerate(ps):
            cells = []
            for lab in labs:
                r = dict(bw[lab])[p]
                cells.append(f"{r['gb_per_s']:.0f} / {100 * r['frac_copy_bw']:.0f}% / "
                             f"{r['gflops']:.0f}")
            print(f"| {p} | {dict(bw[labs[0]])[p]['dof']:.3g} | " + " | ".join(cells) + " |")
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
    ap.add_argument("gpu", help="CSV of dgbench transforms on the GPU (with --transfer)")
    ap.add_argument("--cpu1", help="CSV of the CPU build at 1 rank")
    ap.add_argument("--cpu16", help="CSV of the CPU build at 16 ranks")
    ap.add_argument("-o", "--outdir", default=".", help="folder for the PNGs")
    ap.add_argument("--tables", action="store_true", help="print markdown tables")
    ap.add_argument("--concurrent", nargs="+", help="CSVs with the concurrent variants")
    ap.add_argument("--current", nargs="+",
                    help="CSVs of the concurrent variants as they are now (a third line)")
    a = ap.parse_args(argv)
    gpu = read(a.gpu)
    cpus = {}
    if a.cpu1:
        cpus["1 core"] = read(a.cpu1)
    if a.cpu16:
        cpus["16 ranks"] = read(a.cpu16)
    os.makedirs(a.outdir, exist_ok=True)
    print(plot_dofs(gpu, a.outdir))
    if cpus:
        print(plot_speedup(gpu, cpus, a.outdir))
    print(plot_bandwidth(gpu, a.outdir))
    if a.concurrent:
        rows = gpu + [r for path in a.concurrent for r in read(path)]
        current = [r for path in a.current for r in read(path)] if a.current else None
        print(plot_concurrent(rows, a.outdir, current))
    if a.tables:
        tables(gpu, cpus)


if __name__ == "__main__":
    main()
