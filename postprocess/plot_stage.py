#!/usr/bin/env python3
"""Figure (and markdown tables) of `dgbench stage --csv FILE`: DOF-stages per second against p,
one panel per (physics, mesh), one line per variant, with the bandwidth bound (measured copy
bandwidth / bytes per DOF that fixed::stage_bytes_per_dof counts) of the default variant.

Usage:

    /usr/bin/python3 postprocess/plot_stage.py STAGE.csv [-o FIGURE.png] [--tables]
        [--team CSV ...]

    # docs/stage_h100.png was made with
    /usr/bin/python3 postprocess/plot_stage.py docs/data/stage_h100.csv -o docs/stage_h100.png \
        --team docs/data/stage_h100_team_size.csv docs/data/stage_h100_team32.csv --tables

STAGE.csv comes from `dgbench stage --variants fused,entry,recompute,separate,runtime`. The
--team CSVs (runs with --team-size) are drawn as extra points "VARIANT/tTEAM" on the
advection/affine panel and tabulated with --tables.
"""
import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PANELS = [("advection", "affine"), ("advection", "warped"), ("advdiff", "affine"),
          ("advdiff", "warped")]
VARIANTS = ["fused", "entry", "recompute", "separate", "runtime"]


def read(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            for k in ("p", "n", "ranks", "team_size"):
                if r.get(k):
                    r[k] = int(float(r[k]))
            for k in ("dof", "step_s", "dof_stages_per_s", "bytes_per_dof", "gb_per_s",
                      "bound_dof_stages_per_s", "frac_bound", "gflops"):
                if r.get(k):
                    r[k] = float(r[k])
            rows.append(r)
    return rows


def sel(rows, ph, me, var=None):
    return sorted([r for r in rows if r["physics"] == ph and r["mesh"] == me and
                   (var is None or r["variant"] == var)], key=lambda r: r["p"])


def plot(rows, team_rows, out):
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5), sharex=True)
    for ax, (ph, me) in zip(axes.flat, PANELS):
        for var in VARIANTS:
            s = sel(rows, ph, me, var)
            if s:
                ax.semilogy([r["p"] for r in s], [r["dof_stages_per_s"] for r in s], "o-", ms=4,
                            label=var)
        b = sel(rows, ph, me, "fused")
        if b:
            ax.semilogy([r["p"] for r in b], [r["bound_dof_stages_per_s"] for r in b], "k--",
                        label="bandwidth bound (fused)")
        b = sel(rows, ph, me, "recompute")
        if b:
            ax.semilogy([r["p"] for r in b], [r["bound_dof_stages_per_s"] for r in b], "k:",
                        label="bandwidth bound (recompute)")
        if (ph, me) == ("advection", "affine"):
            groups = {}
            for r in team_rows:
                groups.setdefault(f"{r['variant']}/t{r['team_size']}", []).append(r)
            for lab, g in sorted(groups.items()):
                g.sort(key=lambda r: r["p"])
                ax.semilogy([r["p"] for r in g], [r["dof_stages_per_s"] for r in g], "x:", ms=5,
                            label=lab)
        ax.set_title(f"{ph}, {me}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=3, loc="lower right")
    for ax in axes[1]:
        ax.set_xlabel("order p (q = p + 2)")
    for ax in axes[:, 0]:
        ax.set_ylabel("DOF-stages/s (median)")
    fig.suptitle("dgbench stage: one LSRK stage (RHS + update), ~8.4M DOF, one GPU")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    print(out)


def tables(rows, team_rows):
    print("\n| physics | mesh | p | DOF | best variant | DOF-stages/s | bytes/DOF | % of bound "
          "| GFLOP/s | fused | entry | recompute | separate | runtime |")
    print("|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for ph, me in PANELS:
        for p in sorted({r["p"] for r in sel(rows, ph, me)}):
            c = [r for r in sel(rows, ph, me) if r["p"] == p]
            best = max(c, key=lambda r: r["dof_stages_per_s"])
            by = {r["variant"]: r for r in c}
            cells = [f"{by[v]['dof_stages_per_s']:.3g}" if v in by else "" for v in VARIANTS]
            print(f"| {ph} | {me} | {p} | {best['dof']:.3g} | {best['variant']} | "
                  f"{best['dof_stages_per_s']:.3g} | {best['bytes_per_dof']:.1f} | "
                  f"{100 * best['frac_bound']:.1f}% | {best['gflops']:.0f} | " +
                  " | ".join(cells) + " |")
    if team_rows:
        print("\n| p | variant | team size | DOF-stages/s | % of bound | GFLOP/s |")
        print("|---:|---|---:|---:|---:|---:|")
        for r in sorted(team_rows, key=lambda r: (r["p"], r["variant"], r["team_size"])):
            print(f"| {r['p']} | {r['variant']} | {r['team_size']} | "
                  f"{r['dof_stages_per_s']:.3g} | {100 * r['frac_bound']:.1f}% | "
                  f"{r['gflops']:.0f} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("csv", help="CSV written by dgbench stage --csv")
    ap.add_argument("-o", "--output", default="stage.png", help="figure file")
    ap.add_argument("--team", nargs="*", default=[], help="CSVs of --team-size runs")
    ap.add_argument("--tables", action="store_true", help="print markdown tables")
    a = ap.parse_args(argv)
    rows = read(a.csv)
    team_rows = [r for f in a.team for r in read(f)]
    plot(rows, team_rows, a.output)
    if a.tables:
        tables(rows, team_rows)


if __name__ == "__main__":
    main()
